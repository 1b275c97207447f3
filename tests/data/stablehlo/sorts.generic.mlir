"builtin.module"() <{sym_name = "jit_sorts"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<5x4xf32>) -> (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<5x4xi32>, tensor<3x6xi32>, tensor<5xf32>, tensor<5xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}, {jax.result_info = "result[6]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg13: tensor<3x6xf32>, %arg14: tensor<3x6xf32>, %arg15: tensor<3x6xf32>, %arg16: tensor<5x4xf32>):
    %41:3 = "stablehlo.sort"(%arg13, %arg14, %arg15) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>, %arg23: tensor<f32>, %arg24: tensor<f32>, %arg25: tensor<f32>, %arg26: tensor<f32>):
      %58 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %59 = "stablehlo.compare"(%arg21, %58) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %60 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %61 = "stablehlo.select"(%59, %60, %arg21) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %62 = "stablehlo.compare"(%arg21, %arg21) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %63 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %64 = "stablehlo.select"(%62, %63, %61) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %65 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %66 = "stablehlo.compare"(%arg22, %65) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %67 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %68 = "stablehlo.select"(%66, %67, %arg22) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %69 = "stablehlo.compare"(%arg22, %arg22) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %70 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %71 = "stablehlo.select"(%69, %70, %68) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %72 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %73 = "stablehlo.compare"(%arg23, %72) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %74 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %75 = "stablehlo.select"(%73, %74, %arg23) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %76 = "stablehlo.compare"(%arg23, %arg23) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %77 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %78 = "stablehlo.select"(%76, %77, %75) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %79 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %80 = "stablehlo.compare"(%arg24, %79) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %81 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %82 = "stablehlo.select"(%80, %81, %arg24) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %83 = "stablehlo.compare"(%arg24, %arg24) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %84 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %85 = "stablehlo.select"(%83, %84, %82) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %86 = "stablehlo.compare"(%78, %85) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %87 = "stablehlo.compare"(%64, %71) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %88 = "stablehlo.compare"(%64, %71) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %89 = "stablehlo.and"(%88, %86) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %90 = "stablehlo.or"(%87, %89) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%90) : (tensor<i1>) -> ()
    }) : (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>) -> (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>)
    %42 = "func.call"(%arg16) <{callee = @argsort}> : (tensor<5x4xf32>) -> tensor<5x4xi32>
    %43 = "stablehlo.convert"(%arg13) : (tensor<3x6xf32>) -> tensor<3x6xi32>
    %44 = "stablehlo.constant"() <{value = dense<7> : tensor<i32>}> : () -> tensor<i32>
    %45 = "stablehlo.broadcast_in_dim"(%44) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x6xi32>
    %46 = "stablehlo.multiply"(%43, %45) : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi32>
    %47 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
    %48 = "func.call"(%46, %47) <{callee = @remainder}> : (tensor<3x6xi32>, tensor<i32>) -> tensor<3x6xi32>
    %49 = "func.call"(%48) <{callee = @sort}> : (tensor<3x6xi32>) -> tensor<3x6xi32>
    %50 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %51 = "stablehlo.broadcast_in_dim"(%50) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x4xf32>
    %52 = "stablehlo.add"(%arg16, %51) : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
    %53 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %54 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %55:2 = "stablehlo.reduce"(%arg16, %52, %53, %54) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg17: tensor<f32>, %arg18: tensor<f32>, %arg19: tensor<f32>, %arg20: tensor<f32>):
      %56 = "stablehlo.add"(%arg17, %arg19) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %57 = "stablehlo.multiply"(%arg18, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%56, %57) : (tensor<f32>, tensor<f32>) -> ()
    }) : (tensor<5x4xf32>, tensor<5x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<5xf32>, tensor<5xf32>)
    "func.return"(%41#0, %41#1, %41#2, %42, %49, %55#0, %55#1) : (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<5x4xi32>, tensor<3x6xi32>, tensor<5xf32>, tensor<5xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x4xf32>) -> tensor<5x4xi32>, res_attrs = [{}], sym_name = "argsort", sym_visibility = "private"}> ({
  ^bb0(%arg8: tensor<5x4xf32>):
    %24 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<5x4xi32>
    %25:2 = "stablehlo.sort"(%arg8, %24) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg9: tensor<f32>, %arg10: tensor<f32>, %arg11: tensor<i32>, %arg12: tensor<i32>):
      %26 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %27 = "stablehlo.compare"(%arg9, %26) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %28 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %29 = "stablehlo.select"(%27, %28, %arg9) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %30 = "stablehlo.compare"(%arg9, %arg9) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %31 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %32 = "stablehlo.select"(%30, %31, %29) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %33 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %34 = "stablehlo.compare"(%arg10, %33) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %35 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %36 = "stablehlo.select"(%34, %35, %arg10) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %37 = "stablehlo.compare"(%arg10, %arg10) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %38 = "stablehlo.constant"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
      %39 = "stablehlo.select"(%37, %38, %36) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %40 = "stablehlo.compare"(%32, %39) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%40) : (tensor<i1>) -> ()
    }) : (tensor<5x4xf32>, tensor<5x4xi32>) -> (tensor<5x4xf32>, tensor<5x4xi32>)
    "func.return"(%25#1) : (tensor<5x4xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<3x6xi32>, tensor<i32>) -> tensor<3x6xi32>, res_attrs = [{}], sym_name = "remainder", sym_visibility = "private"}> ({
  ^bb0(%arg6: tensor<3x6xi32>, %arg7: tensor<i32>):
    %3 = "stablehlo.convert"(%arg7) : (tensor<i32>) -> tensor<i32>
    %4 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.compare"(%3, %4) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %7 = "func.call"(%5, %6, %3) <{callee = @_where}> : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x6xi32>
    %9 = "stablehlo.remainder"(%arg6, %8) : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi32>
    %10 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %11 = "stablehlo.broadcast_in_dim"(%10) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x6xi32>
    %12 = "stablehlo.compare"(%9, %11) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi1>
    %13 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x6xi32>
    %15 = "stablehlo.compare"(%9, %14) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi1>
    %16 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %17 = "stablehlo.compare"(%7, %16) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<3x6xi1>
    %19 = "stablehlo.compare"(%15, %18) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<3x6xi1>, tensor<3x6xi1>) -> tensor<3x6xi1>
    %20 = "stablehlo.and"(%19, %12) : (tensor<3x6xi1>, tensor<3x6xi1>) -> tensor<3x6xi1>
    %21 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3x6xi32>
    %22 = "stablehlo.add"(%9, %21) : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi32>
    %23 = "stablehlo.select"(%20, %22, %9) : (tensor<3x6xi1>, tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi32>
    "func.return"(%23) : (tensor<3x6xi32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<i1>, %arg4: tensor<i32>, %arg5: tensor<i32>):
    %2 = "stablehlo.select"(%arg3, %arg4, %arg5) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%2) : (tensor<i32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<3x6xi32>) -> tensor<3x6xi32>, res_attrs = [{}], sym_name = "sort", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3x6xi32>):
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %1 = "stablehlo.compare"(%arg1, %arg2) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%1) : (tensor<i1>) -> ()
    }) : (tensor<3x6xi32>) -> tensor<3x6xi32>
    "func.return"(%0) : (tensor<3x6xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
