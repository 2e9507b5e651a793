// The same program as C++17: fenns' headers inside a C++ translation unit.
#include "consumer.c"
