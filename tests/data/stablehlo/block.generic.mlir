"builtin.module"() <{sym_name = "jit_block"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}, {}, {}, {}], function_type = (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x16xf32>, tensor<16x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg4: tensor<8x8xf32>, %arg5: tensor<8x8xf32>, %arg6: tensor<8x8xf32>, %arg7: tensor<8x8xf32>, %arg8: tensor<8x16xf32>, %arg9: tensor<16x8xf32>, %arg10: tensor<5x8xf32>):
    %12 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %13 = "stablehlo.reduce"(%arg10, %12) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>):
      %112 = "stablehlo.add"(%arg21, %arg22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%112) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %14 = "stablehlo.broadcast_in_dim"(%13) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %15 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %16 = "stablehlo.broadcast_in_dim"(%15) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %17 = "stablehlo.divide"(%14, %16) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %18 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %19 = "stablehlo.subtract"(%arg10, %18) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %20 = "stablehlo.multiply"(%19, %19) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %21 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %22 = "stablehlo.reduce"(%20, %21) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
      %111 = "stablehlo.add"(%arg19, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%111) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %23 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %24 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %25 = "stablehlo.broadcast_in_dim"(%24) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %26 = "stablehlo.divide"(%23, %25) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %27 = "stablehlo.broadcast_in_dim"(%17) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %28 = "stablehlo.subtract"(%arg10, %27) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %29 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %30 = "stablehlo.broadcast_in_dim"(%29) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %31 = "stablehlo.add"(%26, %30) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %32 = "stablehlo.rsqrt"(%31) : (tensor<5x1xf32>) -> tensor<5x1xf32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %34 = "stablehlo.multiply"(%28, %33) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %35 = "stablehlo.dot_general"(%34, %arg4) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %36 = "stablehlo.dot_general"(%34, %arg5) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %37 = "stablehlo.dot_general"(%34, %arg6) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %38 = "stablehlo.dot_general"(%35, %36) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x5xf32>
    %39 = "stablehlo.constant"() <{value = dense<2.82842708> : tensor<f32>}> : () -> tensor<f32>
    %40 = "stablehlo.broadcast_in_dim"(%39) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x5xf32>
    %41 = "stablehlo.divide"(%38, %40) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %42 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %43 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<5x5xi1>
    %44 = "func.call"(%43) <{callee = @tril}> : (tensor<5x5xi1>) -> tensor<5x5xi1>
    %45 = "stablehlo.constant"() <{value = dense<-1.000000e+09> : tensor<f32>}> : () -> tensor<f32>
    %46 = "func.call"(%44, %41, %45) <{callee = @_where}> : (tensor<5x5xi1>, tensor<5x5xf32>, tensor<f32>) -> tensor<5x5xf32>
    %47 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %48 = "stablehlo.reduce"(%46, %47) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg17: tensor<f32>, %arg18: tensor<f32>):
      %110 = "stablehlo.maximum"(%arg17, %arg18) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%110) : (tensor<f32>) -> ()
    }) : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %49 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %50 = "stablehlo.broadcast_in_dim"(%49) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5xf32>
    %51 = "stablehlo.maximum"(%50, %48) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    %52 = "stablehlo.broadcast_in_dim"(%51) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %53 = "stablehlo.broadcast_in_dim"(%52) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %54 = "stablehlo.subtract"(%46, %53) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %55 = "stablehlo.exponential"(%54) : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %56 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %57 = "stablehlo.reduce"(%55, %56) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
      %109 = "stablehlo.add"(%arg15, %arg16) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%109) : (tensor<f32>) -> ()
    }) : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %58 = "stablehlo.broadcast_in_dim"(%57) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %59 = "stablehlo.broadcast_in_dim"(%58) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %60 = "stablehlo.divide"(%55, %59) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %61 = "stablehlo.dot_general"(%60, %37) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %62 = "stablehlo.dot_general"(%61, %arg7) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %63 = "stablehlo.add"(%arg10, %62) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %64 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %65 = "stablehlo.reduce"(%63, %64) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg13: tensor<f32>, %arg14: tensor<f32>):
      %108 = "stablehlo.add"(%arg13, %arg14) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%108) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %66 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %67 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %68 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %69 = "stablehlo.divide"(%66, %68) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %70 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %71 = "stablehlo.subtract"(%63, %70) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %72 = "stablehlo.multiply"(%71, %71) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %73 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %74 = "stablehlo.reduce"(%72, %73) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg11: tensor<f32>, %arg12: tensor<f32>):
      %107 = "stablehlo.add"(%arg11, %arg12) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%107) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %75 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %76 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %77 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %78 = "stablehlo.divide"(%75, %77) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %79 = "stablehlo.broadcast_in_dim"(%69) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %80 = "stablehlo.subtract"(%63, %79) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %81 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %82 = "stablehlo.broadcast_in_dim"(%81) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %83 = "stablehlo.add"(%78, %82) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %84 = "stablehlo.rsqrt"(%83) : (tensor<5x1xf32>) -> tensor<5x1xf32>
    %85 = "stablehlo.broadcast_in_dim"(%84) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %86 = "stablehlo.multiply"(%80, %85) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %87 = "stablehlo.dot_general"(%86, %arg8) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
    %88 = "stablehlo.multiply"(%87, %87) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %89 = "stablehlo.multiply"(%88, %87) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %90 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %91 = "stablehlo.broadcast_in_dim"(%90) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %92 = "stablehlo.multiply"(%91, %89) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %93 = "stablehlo.add"(%87, %92) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %94 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %95 = "stablehlo.broadcast_in_dim"(%94) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %96 = "stablehlo.multiply"(%95, %93) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %97 = "stablehlo.tanh"(%96) : (tensor<5x16xf32>) -> tensor<5x16xf32>
    %98 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %99 = "stablehlo.broadcast_in_dim"(%98) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %100 = "stablehlo.add"(%99, %97) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %101 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %102 = "stablehlo.broadcast_in_dim"(%101) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %103 = "stablehlo.multiply"(%102, %100) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %104 = "stablehlo.multiply"(%87, %103) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %105 = "stablehlo.dot_general"(%104, %arg9) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x16xf32>, tensor<16x8xf32>) -> tensor<5x8xf32>
    %106 = "stablehlo.add"(%63, %105) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    "func.return"(%106) : (tensor<5x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x5xi1>) -> tensor<5x5xi1>, res_attrs = [{}], sym_name = "tril", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<5x5xi1>):
    %3 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<5x5xi32>
    %4 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<5x5xi32>
    %6 = "stablehlo.add"(%3, %5) : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi32>
    %7 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<5x5xi32>
    %8 = "stablehlo.compare"(%6, %7) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
    %9 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    %10 = "stablehlo.broadcast_in_dim"(%9) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<5x5xi1>
    %11 = "stablehlo.select"(%8, %arg3, %10) : (tensor<5x5xi1>, tensor<5x5xi1>, tensor<5x5xi1>) -> tensor<5x5xi1>
    "func.return"(%11) : (tensor<5x5xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<5x5xi1>, tensor<5x5xf32>, tensor<f32>) -> tensor<5x5xf32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<5x5xi1>, %arg1: tensor<5x5xf32>, %arg2: tensor<f32>):
    %0 = "stablehlo.convert"(%arg2) : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x5xf32>
    %2 = "stablehlo.select"(%arg0, %arg1, %1) : (tensor<5x5xi1>, tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    "func.return"(%2) : (tensor<5x5xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
