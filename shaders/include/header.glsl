// Common prologue of every entry file: GLSL version, subgroup extensions and
// the workgroup size, a specialization constant the planner sets.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x_id = 0) in;
