"builtin.module"() <{sym_name = "jit_solver"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x4xf32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg5: tensor<4x4xf32>, %arg6: tensor<4xf32>):
    %38 = "func.call"(%arg5) <{callee = @_diag}> : (tensor<4x4xf32>) -> tensor<4xf32>
    %39 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %40 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %41 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %42:7 = "stablehlo.while"(%arg5, %arg6, %arg5, %38, %arg6, %41, %40) ({
    ^bb0(%arg14: tensor<4x4xf32>, %arg15: tensor<4xf32>, %arg16: tensor<4x4xf32>, %arg17: tensor<4xf32>, %arg18: tensor<4xf32>, %arg19: tensor<i32>, %arg20: tensor<4xf32>):
      %50 = "stablehlo.constant"() <{value = dense<100> : tensor<i32>}> : () -> tensor<i32>
      %51 = "stablehlo.compare"(%arg19, %50) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %52 = "stablehlo.dot_general"(%arg14, %arg20) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %53 = "stablehlo.subtract"(%52, %arg15) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %54 = "func.call"(%53) <{callee = @norm}> : (tensor<4xf32>) -> tensor<f32>
      %55 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
      %56 = "stablehlo.compare"(%54, %55) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %57 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
      %58 = "stablehlo.broadcast_in_dim"(%57) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<i1>
      %59 = "stablehlo.compare"(%51, %58) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %60 = "stablehlo.convert"(%59) : (tensor<i1>) -> tensor<i1>
      %61 = "stablehlo.and"(%60, %56) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%61) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg7: tensor<4x4xf32>, %arg8: tensor<4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4xf32>, %arg11: tensor<4xf32>, %arg12: tensor<i32>, %arg13: tensor<4xf32>):
      %43 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %44 = "stablehlo.add"(%arg12, %43) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %45 = "stablehlo.dot_general"(%arg9, %arg13) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %46 = "stablehlo.multiply"(%arg10, %arg13) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %47 = "stablehlo.subtract"(%45, %46) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %48 = "stablehlo.subtract"(%arg11, %47) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %49 = "stablehlo.divide"(%48, %arg10) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%arg7, %arg8, %arg9, %arg10, %arg11, %44, %49) : (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>)
    "func.return"(%42#5, %42#6) : (tensor<i32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x4xf32>) -> tensor<4xf32>, res_attrs = [{}], sym_name = "_diag", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<4x4xf32>):
    %37 = "func.call"(%arg4) <{callee = @diagonal}> : (tensor<4x4xf32>) -> tensor<4xf32>
    "func.return"(%37) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x4xf32>) -> tensor<4xf32>, res_attrs = [{}], sym_name = "diagonal", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<4x4xf32>):
    %5 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x4xi32>
    %6 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x4xi32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4x4xi32>
    %9 = "stablehlo.add"(%5, %8) : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi32>
    %10 = "stablehlo.compare"(%9, %6) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %11 = "stablehlo.convert"(%10) : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %12 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %13 = "stablehlo.case"(%12) ({
      %36 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      "stablehlo.return"(%36) : (tensor<i32>) -> ()
    }, {
      %35 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      "stablehlo.return"(%35) : (tensor<i32>) -> ()
    }) : (tensor<i32>) -> tensor<i32>
    %14 = "stablehlo.case"(%13) ({
      %15 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
      %16 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
      %17 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %19 = "stablehlo.compare"(%15, %18) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
      %20 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
      %21 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %22 = "stablehlo.add"(%15, %21) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %23 = "stablehlo.select"(%19, %22, %15) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %24 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %25 = "stablehlo.broadcast_in_dim"(%24) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %26 = "stablehlo.compare"(%16, %25) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
      %27 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
      %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<4xi32>
      %29 = "stablehlo.add"(%16, %28) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %30 = "stablehlo.select"(%26, %29, %16) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %31 = "stablehlo.broadcast_in_dim"(%23) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x1xi32>
      %32 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x1xi32>
      %33 = "stablehlo.concatenate"(%31, %32) <{dimension = 1 : i64}> : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
      %34 = "stablehlo.gather"(%arg3, %33) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<4x4xf32>, tensor<4x2xi32>) -> tensor<4xf32>
      "stablehlo.return"(%34) : (tensor<4xf32>) -> ()
    }) : (tensor<i32>) -> tensor<4xf32>
    "func.return"(%14) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4xf32>) -> tensor<f32>, res_attrs = [{}], sym_name = "norm", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.reduce"(%0, %1) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %4 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %3 = "stablehlo.sqrt"(%2) : (tensor<f32>) -> tensor<f32>
    "func.return"(%3) : (tensor<f32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
