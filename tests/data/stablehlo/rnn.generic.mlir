"builtin.module"() <{sym_name = "jit_rnn"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<6x3xf32>) -> (tensor<4xf32>, tensor<6xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg11: tensor<4x4xf32>, %arg12: tensor<3x4xf32>, %arg13: tensor<4xf32>, %arg14: tensor<6x3xf32>):
    %12 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6xf32>
    %14 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %15:6 = "stablehlo.while"(%arg14, %arg11, %arg12, %14, %arg13, %13) ({
    ^bb0(%arg21: tensor<6x3xf32>, %arg22: tensor<4x4xf32>, %arg23: tensor<3x4xf32>, %arg24: tensor<i32>, %arg25: tensor<4xf32>, %arg26: tensor<6xf32>):
      %21 = "stablehlo.constant"() <{value = dense<6> : tensor<i32>}> : () -> tensor<i32>
      %22 = "stablehlo.compare"(%arg24, %21) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%22) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg15: tensor<6x3xf32>, %arg16: tensor<4x4xf32>, %arg17: tensor<3x4xf32>, %arg18: tensor<i32>, %arg19: tensor<4xf32>, %arg20: tensor<6xf32>):
      %16 = "func.call"(%arg15, %arg18) <{callee = @dynamic_index_in_dim}> : (tensor<6x3xf32>, tensor<i32>) -> tensor<3xf32>
      %17:2 = "func.call"(%arg16, %arg17, %arg19, %16) <{callee = @closed_call}> : (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<f32>)
      %18 = "func.call"(%arg20, %17#1, %arg18) <{callee = @dynamic_update_index_in_dim}> : (tensor<6xf32>, tensor<f32>, tensor<i32>) -> tensor<6xf32>
      %19 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %20 = "stablehlo.add"(%arg18, %19) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg15, %arg16, %arg17, %20, %17#0, %18) : (tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4xf32>, tensor<6xf32>) -> ()
    }) : (tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4xf32>, tensor<6xf32>) -> (tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4xf32>, tensor<6xf32>)
    "func.return"(%15#4, %15#5) : (tensor<4xf32>, tensor<6xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<6x3xf32>, tensor<i32>) -> tensor<3xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<6x3xf32>, %arg10: tensor<i32>):
    %9 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %10 = "stablehlo.dynamic_slice"(%arg9, %arg10, %9) <{slice_sizes = array<i64: 1, 3>}> : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %11 = "stablehlo.reshape"(%10) : (tensor<1x3xf32>) -> tensor<3xf32>
    "func.return"(%11) : (tensor<3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<f32>), res_attrs = [{}, {}], sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<4x4xf32>, %arg4: tensor<3x4xf32>, %arg5: tensor<4xf32>, %arg6: tensor<3xf32>):
    %2 = "stablehlo.dot_general"(%arg5, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %3 = "stablehlo.dot_general"(%arg6, %arg4) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %4 = "stablehlo.add"(%2, %3) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %5 = "stablehlo.tanh"(%4) : (tensor<4xf32>) -> tensor<4xf32>
    %6 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %7 = "stablehlo.reduce"(%5, %6) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %8 = "stablehlo.add"(%arg7, %arg8) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%8) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%5, %7) : (tensor<4xf32>, tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<6xf32>, tensor<f32>, tensor<i32>) -> tensor<6xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<6xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<1xf32>
    %1 = "stablehlo.dynamic_update_slice"(%arg0, %0, %arg2) : (tensor<6xf32>, tensor<1xf32>, tensor<i32>) -> tensor<6xf32>
    "func.return"(%1) : (tensor<6xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
