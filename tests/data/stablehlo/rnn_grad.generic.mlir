"builtin.module"() <{sym_name = "jit_rnn_loss_grad"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<6x3xf32>) -> tensor<4x4xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg20: tensor<4x4xf32>, %arg21: tensor<3x4xf32>, %arg22: tensor<4xf32>, %arg23: tensor<6x3xf32>):
    %32 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6x4xf32>
    %34 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %35:6 = "stablehlo.while"(%arg23, %arg20, %arg21, %34, %arg22, %33) ({
    ^bb0(%arg46: tensor<6x3xf32>, %arg47: tensor<4x4xf32>, %arg48: tensor<3x4xf32>, %arg49: tensor<i32>, %arg50: tensor<4xf32>, %arg51: tensor<6x4xf32>):
      %61 = "stablehlo.constant"() <{value = dense<6> : tensor<i32>}> : () -> tensor<i32>
      %62 = "stablehlo.compare"(%arg49, %61) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%62) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg40: tensor<6x3xf32>, %arg41: tensor<4x4xf32>, %arg42: tensor<3x4xf32>, %arg43: tensor<i32>, %arg44: tensor<4xf32>, %arg45: tensor<6x4xf32>):
      %56 = "func.call"(%arg40, %arg43) <{callee = @dynamic_index_in_dim}> : (tensor<6x3xf32>, tensor<i32>) -> tensor<3xf32>
      %57:2 = "func.call"(%arg41, %arg42, %arg44, %56) <{callee = @closed_call}> : (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      %58 = "func.call"(%arg45, %57#1, %arg43) <{callee = @dynamic_update_index_in_dim}> : (tensor<6x4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<6x4xf32>
      %59 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %60 = "stablehlo.add"(%arg43, %59) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg40, %arg41, %arg42, %60, %57#0, %58) : (tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4xf32>, tensor<6x4xf32>) -> ()
    }) : (tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4xf32>, tensor<6x4xf32>)
    %36 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %37 = "stablehlo.broadcast_in_dim"(%36) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<6xf32>
    %38 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %39 = "stablehlo.broadcast_in_dim"(%38) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %40 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %41 = "stablehlo.broadcast_in_dim"(%40) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x4xf32>
    %42 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %43:8 = "stablehlo.while"(%37, %35#5, %arg23, %arg20, %arg21, %42, %41, %39) ({
    ^bb0(%arg32: tensor<6xf32>, %arg33: tensor<6x4xf32>, %arg34: tensor<6x3xf32>, %arg35: tensor<4x4xf32>, %arg36: tensor<3x4xf32>, %arg37: tensor<i32>, %arg38: tensor<4x4xf32>, %arg39: tensor<4xf32>):
      %54 = "stablehlo.constant"() <{value = dense<6> : tensor<i32>}> : () -> tensor<i32>
      %55 = "stablehlo.compare"(%arg37, %54) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%55) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg24: tensor<6xf32>, %arg25: tensor<6x4xf32>, %arg26: tensor<6x3xf32>, %arg27: tensor<4x4xf32>, %arg28: tensor<3x4xf32>, %arg29: tensor<i32>, %arg30: tensor<4x4xf32>, %arg31: tensor<4xf32>):
      %44 = "stablehlo.constant"() <{value = dense<6> : tensor<i32>}> : () -> tensor<i32>
      %45 = "stablehlo.subtract"(%44, %arg29) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %46 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %47 = "stablehlo.subtract"(%45, %46) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %48 = "func.call"(%arg24, %47) <{callee = @dynamic_index_in_dim_0}> : (tensor<6xf32>, tensor<i32>) -> tensor<f32>
      %49 = "func.call"(%arg25, %47) <{callee = @dynamic_index_in_dim_1}> : (tensor<6x4xf32>, tensor<i32>) -> tensor<4xf32>
      %50 = "func.call"(%arg26, %47) <{callee = @dynamic_index_in_dim}> : (tensor<6x3xf32>, tensor<i32>) -> tensor<3xf32>
      %51:2 = "func.call"(%arg27, %arg28, %arg30, %arg31, %48, %49, %50) <{callee = @closed_call_2}> : (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
      %52 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %53 = "stablehlo.add"(%arg29, %52) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg24, %arg25, %arg26, %arg27, %arg28, %53, %51#0, %51#1) : (tensor<6xf32>, tensor<6x4xf32>, tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<4xf32>) -> ()
    }) : (tensor<6xf32>, tensor<6x4xf32>, tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<4xf32>) -> (tensor<6xf32>, tensor<6x4xf32>, tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<4xf32>)
    "func.return"(%43#6) : (tensor<4x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<6x3xf32>, tensor<i32>) -> tensor<3xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg18: tensor<6x3xf32>, %arg19: tensor<i32>):
    %29 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %30 = "stablehlo.dynamic_slice"(%arg18, %arg19, %29) <{slice_sizes = array<i64: 1, 3>}> : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %31 = "stablehlo.reshape"(%30) : (tensor<1x3xf32>) -> tensor<3xf32>
    "func.return"(%31) : (tensor<3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<4xf32>), res_attrs = [{}, {}], sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg14: tensor<4x4xf32>, %arg15: tensor<3x4xf32>, %arg16: tensor<4xf32>, %arg17: tensor<3xf32>):
    %25 = "stablehlo.dot_general"(%arg16, %arg14) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %26 = "stablehlo.dot_general"(%arg17, %arg15) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %27 = "stablehlo.add"(%25, %26) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %28 = "stablehlo.tanh"(%27) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%28, %arg16) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<6x4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<6x4xf32>, res_attrs = [{}], sym_name = "dynamic_update_index_in_dim", sym_visibility = "private"}> ({
  ^bb0(%arg11: tensor<6x4xf32>, %arg12: tensor<4xf32>, %arg13: tensor<i32>):
    %22 = "stablehlo.broadcast_in_dim"(%arg12) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> tensor<1x4xf32>
    %23 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %24 = "stablehlo.dynamic_update_slice"(%arg11, %22, %arg13, %23) : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
    "func.return"(%24) : (tensor<6x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<6xf32>, tensor<i32>) -> tensor<f32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_0", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<6xf32>, %arg10: tensor<i32>):
    %20 = "stablehlo.dynamic_slice"(%arg9, %arg10) <{slice_sizes = array<i64: 1>}> : (tensor<6xf32>, tensor<i32>) -> tensor<1xf32>
    %21 = "stablehlo.reshape"(%20) : (tensor<1xf32>) -> tensor<f32>
    "func.return"(%21) : (tensor<f32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<6x4xf32>, tensor<i32>) -> tensor<4xf32>, res_attrs = [{}], sym_name = "dynamic_index_in_dim_1", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<6x4xf32>, %arg8: tensor<i32>):
    %17 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %18 = "stablehlo.dynamic_slice"(%arg7, %arg8, %17) <{slice_sizes = array<i64: 1, 4>}> : (tensor<6x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %19 = "stablehlo.reshape"(%18) : (tensor<1x4xf32>) -> tensor<4xf32>
    "func.return"(%19) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4x4xf32>, tensor<4xf32>), res_attrs = [{}, {}], sym_name = "closed_call_2", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x4xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<4x4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<f32>, %arg5: tensor<4xf32>, %arg6: tensor<3xf32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg4) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %1 = "stablehlo.add"(%arg3, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2:5 = "stablehlo.optimization_barrier"(%arg0, %arg1, %arg5, %arg6, %1) : (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>)
    %3 = "stablehlo.dot_general"(%2#2, %2#0) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %4 = "stablehlo.dot_general"(%2#3, %2#1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %5 = "stablehlo.add"(%3, %4) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %6 = "stablehlo.tanh"(%5) : (tensor<4xf32>) -> tensor<4xf32>
    %7 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %9 = "stablehlo.subtract"(%8, %6) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %10 = "stablehlo.multiply"(%2#4, %9) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %11 = "stablehlo.multiply"(%10, %6) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %12 = "stablehlo.add"(%10, %11) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %13 = "stablehlo.dot_general"(%12, %2#2) <{dot_dimension_numbers = #stablehlo.dot<>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    %14 = "stablehlo.transpose"(%13) <{permutation = array<i64: 1, 0>}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %15 = "stablehlo.dot_general"(%12, %2#0) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %16 = "stablehlo.add"(%arg2, %14) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    "func.return"(%16, %15) : (tensor<4x4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
