"builtin.module"() <{sym_name = "jit_ops_misc"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x5xf32>, tensor<i32>) -> (tensor<4x5xf32>, tensor<4xi32>, tensor<4x10xf32>, tensor<5x7xf32>, tensor<2x2xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}, {jax.result_info = "result[7]"}, {jax.result_info = "result[8]"}, {jax.result_info = "result[9]"}, {jax.result_info = "result[10]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg17: tensor<4x5xf32>, %arg18: tensor<i32>):
    %42 = "stablehlo.constant"() <{value = dense<[2, 0, 1]> : tensor<3xi32>}> : () -> tensor<3xi32>
    %43 = "stablehlo.constant"() <{value = dense<[0, 3, 3]> : tensor<3xi32>}> : () -> tensor<3xi32>
    %44 = "func.call"(%arg17) <{callee = @sort}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %45 = "func.call"(%arg17) <{callee = @argmax}> : (tensor<4x5xf32>) -> tensor<4xi32>
    %46 = "stablehlo.reverse"(%arg17) <{dimensions = array<i64: 1>}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %47 = "stablehlo.concatenate"(%arg17, %46) <{dimension = 1 : i64}> : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x10xf32>
    %48 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %49 = "func.call"(%arg17, %48) <{callee = @_pad}> : (tensor<4x5xf32>, tensor<f32>) -> tensor<5x7xf32>
    %50 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %51 = "stablehlo.compare"(%arg18, %50) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %52 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %53 = "stablehlo.add"(%arg18, %52) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %54 = "stablehlo.select"(%51, %53, %arg18) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %55 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %56 = "stablehlo.dynamic_slice"(%arg17, %54, %55) <{slice_sizes = array<i64: 2, 2>}> : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    %57 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %58 = "stablehlo.broadcast_in_dim"(%57) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<1x2xf32>
    %59 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %60 = "stablehlo.compare"(%arg18, %59) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %61 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %62 = "stablehlo.add"(%arg18, %61) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %63 = "stablehlo.select"(%60, %62, %arg18) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %64 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %65 = "stablehlo.compare"(%arg18, %64) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %66 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
    %67 = "stablehlo.add"(%arg18, %66) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %68 = "stablehlo.select"(%65, %67, %arg18) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %69 = "stablehlo.dynamic_update_slice"(%arg17, %58, %63, %68) : (tensor<4x5xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
    %70 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %71 = "stablehlo.broadcast_in_dim"(%70) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %72 = "stablehlo.compare"(%42, %71) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %73 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %74 = "stablehlo.broadcast_in_dim"(%73) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %75 = "stablehlo.add"(%42, %74) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %76 = "stablehlo.select"(%72, %75, %42) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %77 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xi32>) -> tensor<3x1xi32>
    %78 = "stablehlo.gather"(%arg17, %77) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 5>}> : (tensor<4x5xf32>, tensor<3x1xi32>) -> tensor<3x5xf32>
    %79 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %80 = "stablehlo.broadcast_in_dim"(%79) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5xf32>
    %81 = "stablehlo.slice"(%arg17) <{limit_indices = array<i64: 1, 3>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<4x5xf32>) -> tensor<1x3xf32>
    %82 = "stablehlo.reshape"(%81) : (tensor<1x3xf32>) -> tensor<3xf32>
    %83 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %84 = "stablehlo.broadcast_in_dim"(%83) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %85 = "stablehlo.compare"(%43, %84) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %86 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
    %87 = "stablehlo.broadcast_in_dim"(%86) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %88 = "stablehlo.add"(%43, %87) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %89 = "stablehlo.select"(%85, %88, %43) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %90 = "stablehlo.broadcast_in_dim"(%89) <{broadcast_dimensions = array<i64: 0>}> : (tensor<3xi32>) -> tensor<3x1xi32>
    %91 = "stablehlo.scatter"(%80, %90, %82) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
      %106 = "stablehlo.add"(%arg19, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%106) : (tensor<f32>) -> ()
    }) : (tensor<5xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<5xf32>
    %92 = "stablehlo.constant"() <{value = dense<-5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %93 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %94 = "func.call"(%arg17, %92, %93) <{callee = @clip}> : (tensor<4x5xf32>, tensor<f32>, tensor<f32>) -> tensor<4x5xf32>
    %95 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %96 = "stablehlo.compare"(%arg18, %95) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %97 = "stablehlo.convert"(%96) : (tensor<i1>) -> tensor<i32>
    %98 = "stablehlo.case"(%97) ({
      %103 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %104 = "stablehlo.broadcast_in_dim"(%103) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x5xf32>
      %105 = "stablehlo.subtract"(%arg17, %104) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
      "stablehlo.return"(%105) : (tensor<4x5xf32>) -> ()
    }, {
      %100 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %101 = "stablehlo.broadcast_in_dim"(%100) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x5xf32>
      %102 = "stablehlo.multiply"(%arg17, %101) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
      "stablehlo.return"(%102) : (tensor<4x5xf32>) -> ()
    }) : (tensor<i32>) -> tensor<4x5xf32>
    %99 = "func.call"(%arg17) <{callee = @cumsum}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
    "func.return"(%44, %45, %47, %49, %56, %69, %78, %91, %94, %98, %99) : (tensor<4x5xf32>, tensor<4xi32>, tensor<4x10xf32>, tensor<5x7xf32>, tensor<2x2xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x5xf32>) -> tensor<4x5xf32>, res_attrs = [{}], sym_name = "sort", sym_visibility = "private"}> ({
  ^bb0(%arg14: tensor<4x5xf32>):
    %26 = "stablehlo.sort"(%arg14) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
      %27 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %28 = "stablehlo.compare"(%arg15, %27) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %29 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %30 = "stablehlo.select"(%28, %29, %arg15) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %31 = "stablehlo.compare"(%arg15, %arg15) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %32 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %33 = "stablehlo.select"(%31, %32, %30) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %34 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %35 = "stablehlo.compare"(%arg16, %34) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %36 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %37 = "stablehlo.select"(%35, %36, %arg16) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %38 = "stablehlo.compare"(%arg16, %arg16) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %39 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %40 = "stablehlo.select"(%38, %39, %37) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %41 = "stablehlo.compare"(%33, %40) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%41) : (tensor<i1>) -> ()
    }) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    "func.return"(%26) : (tensor<4x5xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x5xf32>) -> tensor<4xi32>, sym_name = "argmax", sym_visibility = "private"}> ({
  ^bb0(%arg9: tensor<4x5xf32>):
    %13 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x5xi32>
    %14 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %15 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %16:2 = "stablehlo.reduce"(%arg9, %13, %14, %15) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg10: tensor<f32>, %arg11: tensor<i32>, %arg12: tensor<f32>, %arg13: tensor<i32>):
      %17 = "stablehlo.compare"(%arg10, %arg12) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %18 = "stablehlo.compare"(%arg10, %arg10) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %19 = "stablehlo.or"(%17, %18) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %20 = "stablehlo.compare"(%arg10, %arg12) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %21 = "stablehlo.compare"(%arg11, %arg13) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %22 = "stablehlo.and"(%20, %21) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %23 = "stablehlo.or"(%19, %22) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %24 = "stablehlo.select"(%19, %arg10, %arg12) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %25 = "stablehlo.select"(%23, %arg11, %arg13) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%24, %25) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<4x5xf32>, tensor<4x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
    "func.return"(%16#1) : (tensor<4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<4x5xf32>, tensor<f32>) -> tensor<5x7xf32>, res_attrs = [{}], sym_name = "_pad", sym_visibility = "private"}> ({
  ^bb0(%arg7: tensor<4x5xf32>, %arg8: tensor<f32>):
    %11 = "stablehlo.convert"(%arg8) : (tensor<f32>) -> tensor<f32>
    %12 = "stablehlo.pad"(%arg7, %11) <{edge_padding_high = array<i64: 0, 2>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<4x5xf32>, tensor<f32>) -> tensor<5x7xf32>
    "func.return"(%12) : (tensor<5x7xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<4x5xf32>, tensor<f32>, tensor<f32>) -> tensor<4x5xf32>, res_attrs = [{}], sym_name = "clip", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<4x5xf32>, %arg5: tensor<f32>, %arg6: tensor<f32>):
    %5 = "stablehlo.convert"(%arg5) : (tensor<f32>) -> tensor<f32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x5xf32>
    %7 = "stablehlo.maximum"(%6, %arg4) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    %8 = "stablehlo.convert"(%arg6) : (tensor<f32>) -> tensor<f32>
    %9 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x5xf32>
    %10 = "stablehlo.minimum"(%9, %7) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    "func.return"(%10) : (tensor<4x5xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<4x5xf32>) -> tensor<4x5xf32>, res_attrs = [{}], sym_name = "cumsum", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<4x5xf32>):
    %4 = "func.call"(%arg3) <{callee = @cumsum_0}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
    "func.return"(%4) : (tensor<4x5xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x5xf32>) -> tensor<4x5xf32>, sym_name = "cumsum_0", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x5xf32>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<f32>
    %2 = "stablehlo.reduce_window"(%arg0, %1) <{base_dilations = array<i64: 1, 1>, padding = dense<[[3, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 4, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%3) : (tensor<f32>) -> ()
    }) : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
    "func.return"(%2) : (tensor<4x5xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
