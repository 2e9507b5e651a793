/* fenns: command-line front end; dispatches to the subcommands in cli.h. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include <fenns/fenns.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: fenns <command> [options]\n"
            "\n"
            "commands:\n"
            "  info        devices, limits, chosen plan\n"
            "  neighbors   fixed-radius neighbour lists of a point file:\n"
            "              fenns neighbors --input F --radius R [--method fenns|fenns-paper|counting|octant|radix|auto]\n"
            "                              [--output F|-] [--device I] [--domain x0,y0,z0,x1,y1,z1] [--stats]\n"
            "  run         a user neighbour kernel (GLSL) on every point of a file:\n"
            "              fenns run --input F --radius R --kernel K.glsl --output OUT.f32 [...]\n"
            "  bench       warm GPU timings of the benchmark scenarios as CSV (fenns bench --help)\n"
            "  profile     per-pass GPU times of one case (fenns profile --help)\n"
            "\n"
            "Inputs by extension: .f32 (raw float32 x,y,z), .xyz/.txt/.csv (text), .ply.\n"
            "Device: --device, else FENNS_DEVICE, else a discrete GPU, else integrated, else a CPU driver.\n"
            "FENNS_VALIDATION=1 turns on the Vulkan validation layer.\n"
            "'fenns <command> --help' describes a command.\n");
}

int main(int argc, char **argv)
{
    const char *cmd;
    if (argc < 2) {
        fprintf(stderr, "fenns: error: no command given (try 'fenns --help')\n");
        return FENNS_CLI_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return FENNS_CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("fenns %d.%d.%d\n", FENNS_VERSION_MAJOR, FENNS_VERSION_MINOR, FENNS_VERSION_PATCH);
        return FENNS_CLI_EXIT_OK;
    }
    if (strcmp(cmd, "info") == 0)
        return fenns_cli_info(argc - 1, argv + 1);
    if (strcmp(cmd, "neighbors") == 0 || strcmp(cmd, "neighbours") == 0)
        return fenns_cli_neighbors(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return fenns_cli_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "profile") == 0)
        return fenns_cli_profile(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return fenns_cli_run(argc - 1, argv + 1);
    if (cmd[0] == '-')
        fprintf(stderr, "fenns: error: unknown option '%s' (try 'fenns --help')\n", cmd);
    else
        fprintf(stderr, "fenns: error: unknown command '%s' (try 'fenns --help')\n", cmd);
    return FENNS_CLI_EXIT_USAGE;
}
