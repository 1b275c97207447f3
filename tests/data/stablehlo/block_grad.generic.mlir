"builtin.module"() <{sym_name = "jit_block_grad"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}, {}, {}, {}], function_type = (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x16xf32>, tensor<16x8xf32>, tensor<5x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x16xf32>, tensor<16x8xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}, {jax.result_info = "result[2]"}, {jax.result_info = "result[3]"}, {jax.result_info = "result[4]"}, {jax.result_info = "result[5]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg6: tensor<8x8xf32>, %arg7: tensor<8x8xf32>, %arg8: tensor<8x8xf32>, %arg9: tensor<8x8xf32>, %arg10: tensor<8x16xf32>, %arg11: tensor<16x8xf32>, %arg12: tensor<5x8xf32>):
    %15 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %16 = "stablehlo.reduce"(%arg12, %15) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg37: tensor<f32>, %arg38: tensor<f32>):
      %233 = "stablehlo.add"(%arg37, %arg38) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%233) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %17 = "stablehlo.broadcast_in_dim"(%16) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %18 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %19 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %20 = "stablehlo.divide"(%17, %19) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %21 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %22 = "stablehlo.subtract"(%arg12, %21) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %23 = "stablehlo.multiply"(%22, %22) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %24 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %25 = "stablehlo.reduce"(%23, %24) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg35: tensor<f32>, %arg36: tensor<f32>):
      %232 = "stablehlo.add"(%arg35, %arg36) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%232) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %27 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %28 = "stablehlo.broadcast_in_dim"(%27) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %29 = "stablehlo.divide"(%26, %28) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %30 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %31 = "stablehlo.subtract"(%arg12, %30) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %32 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %34 = "stablehlo.add"(%29, %33) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %35 = "stablehlo.rsqrt"(%34) : (tensor<5x1xf32>) -> tensor<5x1xf32>
    %36 = "stablehlo.broadcast_in_dim"(%35) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %37 = "stablehlo.multiply"(%31, %36) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %38 = "stablehlo.dot_general"(%37, %arg6) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %39 = "stablehlo.dot_general"(%37, %arg7) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %40 = "stablehlo.dot_general"(%37, %arg8) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %41 = "stablehlo.dot_general"(%38, %39) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x5xf32>
    %42 = "stablehlo.constant"() <{value = dense<2.82842708> : tensor<f32>}> : () -> tensor<f32>
    %43 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x5xf32>
    %44 = "stablehlo.divide"(%41, %43) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %45 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %46 = "stablehlo.broadcast_in_dim"(%45) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<5x5xi1>
    %47 = "func.call"(%46) <{callee = @tril}> : (tensor<5x5xi1>) -> tensor<5x5xi1>
    %48 = "stablehlo.constant"() <{value = dense<-1.000000e+09> : tensor<f32>}> : () -> tensor<f32>
    %49 = "func.call"(%47, %44, %48) <{callee = @_where}> : (tensor<5x5xi1>, tensor<5x5xf32>, tensor<f32>) -> tensor<5x5xf32>
    %50 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %51 = "stablehlo.reduce"(%49, %50) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg33: tensor<f32>, %arg34: tensor<f32>):
      %231 = "stablehlo.maximum"(%arg33, %arg34) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%231) : (tensor<f32>) -> ()
    }) : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %52 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %53 = "stablehlo.broadcast_in_dim"(%52) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5xf32>
    %54 = "stablehlo.maximum"(%53, %51) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    %55 = "stablehlo.broadcast_in_dim"(%54) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %56 = "stablehlo.broadcast_in_dim"(%55) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %57 = "stablehlo.subtract"(%49, %56) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %58 = "stablehlo.exponential"(%57) : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %59 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %60 = "stablehlo.reduce"(%58, %59) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %230 = "stablehlo.add"(%arg31, %arg32) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%230) : (tensor<f32>) -> ()
    }) : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %61 = "stablehlo.broadcast_in_dim"(%60) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %62 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %63 = "stablehlo.divide"(%58, %62) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %64 = "stablehlo.multiply"(%61, %61) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %65 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %66 = "stablehlo.broadcast_in_dim"(%65) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %67 = "stablehlo.divide"(%66, %64) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %68 = "stablehlo.dot_general"(%63, %40) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %69 = "stablehlo.dot_general"(%68, %arg9) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %70 = "stablehlo.add"(%arg12, %69) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %71 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %72 = "stablehlo.reduce"(%70, %71) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg29: tensor<f32>, %arg30: tensor<f32>):
      %229 = "stablehlo.add"(%arg29, %arg30) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%229) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %73 = "stablehlo.broadcast_in_dim"(%72) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %74 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %75 = "stablehlo.broadcast_in_dim"(%74) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %76 = "stablehlo.divide"(%73, %75) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %77 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %78 = "stablehlo.subtract"(%70, %77) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %79 = "stablehlo.multiply"(%78, %78) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %80 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %81 = "stablehlo.broadcast_in_dim"(%80) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x8xf32>
    %82 = "stablehlo.multiply"(%81, %78) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %83 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %84 = "stablehlo.reduce"(%79, %83) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg27: tensor<f32>, %arg28: tensor<f32>):
      %228 = "stablehlo.add"(%arg27, %arg28) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%228) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %85 = "stablehlo.broadcast_in_dim"(%84) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x1xf32>
    %86 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %87 = "stablehlo.broadcast_in_dim"(%86) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %88 = "stablehlo.divide"(%85, %87) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %89 = "stablehlo.broadcast_in_dim"(%76) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %90 = "stablehlo.subtract"(%70, %89) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %91 = "stablehlo.constant"() <{value = dense<9.99999974E-6> : tensor<f32>}> : () -> tensor<f32>
    %92 = "stablehlo.broadcast_in_dim"(%91) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %93 = "stablehlo.add"(%88, %92) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %94 = "stablehlo.rsqrt"(%93) : (tensor<5x1xf32>) -> tensor<5x1xf32>
    %95 = "stablehlo.divide"(%94, %93) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %96 = "stablehlo.constant"() <{value = dense<-5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %97 = "stablehlo.broadcast_in_dim"(%96) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %98 = "stablehlo.multiply"(%97, %95) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %99 = "stablehlo.broadcast_in_dim"(%94) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %100 = "stablehlo.multiply"(%90, %99) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %101 = "stablehlo.dot_general"(%100, %arg10) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
    %102 = "stablehlo.multiply"(%101, %101) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %103 = "stablehlo.multiply"(%102, %101) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %104 = "stablehlo.multiply"(%101, %101) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %105 = "stablehlo.constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %106 = "stablehlo.broadcast_in_dim"(%105) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %107 = "stablehlo.multiply"(%106, %104) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %108 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %109 = "stablehlo.broadcast_in_dim"(%108) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %110 = "stablehlo.multiply"(%109, %103) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %111 = "stablehlo.add"(%101, %110) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %112 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %113 = "stablehlo.broadcast_in_dim"(%112) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %114 = "stablehlo.multiply"(%113, %111) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %115 = "stablehlo.tanh"(%114) : (tensor<5x16xf32>) -> tensor<5x16xf32>
    %116 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %117 = "stablehlo.broadcast_in_dim"(%116) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %118 = "stablehlo.subtract"(%117, %115) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %119 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %120 = "stablehlo.broadcast_in_dim"(%119) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %121 = "stablehlo.add"(%120, %115) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %122 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %123 = "stablehlo.broadcast_in_dim"(%122) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %124 = "stablehlo.multiply"(%123, %121) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %125 = "stablehlo.multiply"(%101, %124) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %126 = "stablehlo.dot_general"(%125, %arg11) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x16xf32>, tensor<16x8xf32>) -> tensor<5x8xf32>
    %127 = "stablehlo.add"(%70, %126) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %128 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %129 = "stablehlo.broadcast_in_dim"(%128) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x8xf32>
    %130 = "stablehlo.multiply"(%129, %127) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %131 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %132 = "stablehlo.broadcast_in_dim"(%131) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x8xf32>
    %133 = "stablehlo.multiply"(%132, %130) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %134 = "stablehlo.dot_general"(%133, %125) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x16xf32>) -> tensor<8x16xf32>
    %135 = "stablehlo.transpose"(%134) <{permutation = array<i64: 1, 0>}> : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %136 = "stablehlo.dot_general"(%133, %arg11) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<16x8xf32>) -> tensor<5x16xf32>
    %137 = "stablehlo.multiply"(%101, %136) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %138 = "stablehlo.multiply"(%136, %124) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %139 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %140 = "stablehlo.broadcast_in_dim"(%139) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %141 = "stablehlo.multiply"(%140, %137) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %142 = "stablehlo.multiply"(%141, %118) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %143 = "stablehlo.multiply"(%142, %115) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %144 = "stablehlo.add"(%142, %143) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %145 = "stablehlo.constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
    %146 = "stablehlo.broadcast_in_dim"(%145) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %147 = "stablehlo.multiply"(%146, %144) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %148 = "stablehlo.add"(%138, %147) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %149 = "stablehlo.constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
    %150 = "stablehlo.broadcast_in_dim"(%149) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x16xf32>
    %151 = "stablehlo.multiply"(%150, %147) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %152 = "stablehlo.multiply"(%151, %107) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %153 = "stablehlo.add"(%148, %152) : (tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<5x16xf32>
    %154 = "stablehlo.dot_general"(%153, %100) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x16xf32>, tensor<5x8xf32>) -> tensor<16x8xf32>
    %155 = "stablehlo.transpose"(%154) <{permutation = array<i64: 1, 0>}> : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %156 = "stablehlo.dot_general"(%153, %arg10) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x16xf32>, tensor<8x16xf32>) -> tensor<5x8xf32>
    %157 = "stablehlo.multiply"(%90, %156) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %158 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %159 = "stablehlo.reduce"(%157, %158) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg25: tensor<f32>, %arg26: tensor<f32>):
      %227 = "stablehlo.add"(%arg25, %arg26) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%227) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %160 = "stablehlo.reshape"(%159) : (tensor<5xf32>) -> tensor<5x1xf32>
    %161 = "stablehlo.broadcast_in_dim"(%94) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %162 = "stablehlo.multiply"(%156, %161) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %163 = "stablehlo.multiply"(%160, %98) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %164 = "stablehlo.negate"(%162) : (tensor<5x8xf32>) -> tensor<5x8xf32>
    %165 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %166 = "stablehlo.reduce"(%164, %165) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg23: tensor<f32>, %arg24: tensor<f32>):
      %226 = "stablehlo.add"(%arg23, %arg24) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%226) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %167 = "stablehlo.reshape"(%166) : (tensor<5xf32>) -> tensor<5x1xf32>
    %168 = "stablehlo.add"(%133, %162) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %169 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %170 = "stablehlo.broadcast_in_dim"(%169) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %171 = "stablehlo.divide"(%163, %170) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %172 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %173 = "stablehlo.reduce"(%171, %172) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg21: tensor<f32>, %arg22: tensor<f32>):
      %225 = "stablehlo.add"(%arg21, %arg22) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%225) : (tensor<f32>) -> ()
    }) : (tensor<5x1xf32>, tensor<f32>) -> tensor<5xf32>
    %174 = "stablehlo.broadcast_in_dim"(%173) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x8xf32>
    %175 = "stablehlo.multiply"(%174, %82) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %176 = "stablehlo.negate"(%175) : (tensor<5x8xf32>) -> tensor<5x8xf32>
    %177 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %178 = "stablehlo.reduce"(%176, %177) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg19: tensor<f32>, %arg20: tensor<f32>):
      %224 = "stablehlo.add"(%arg19, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%224) : (tensor<f32>) -> ()
    }) : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %179 = "stablehlo.reshape"(%178) : (tensor<5xf32>) -> tensor<5x1xf32>
    %180 = "stablehlo.add"(%168, %175) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %181 = "stablehlo.add"(%167, %179) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %182 = "stablehlo.constant"() <{value = dense<8.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %183 = "stablehlo.broadcast_in_dim"(%182) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x1xf32>
    %184 = "stablehlo.divide"(%181, %183) : (tensor<5x1xf32>, tensor<5x1xf32>) -> tensor<5x1xf32>
    %185 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %186 = "stablehlo.reduce"(%184, %185) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg17: tensor<f32>, %arg18: tensor<f32>):
      %223 = "stablehlo.add"(%arg17, %arg18) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%223) : (tensor<f32>) -> ()
    }) : (tensor<5x1xf32>, tensor<f32>) -> tensor<5xf32>
    %187 = "stablehlo.broadcast_in_dim"(%186) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x8xf32>
    %188 = "stablehlo.add"(%180, %187) : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %189 = "stablehlo.dot_general"(%188, %68) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
    %190 = "stablehlo.transpose"(%189) <{permutation = array<i64: 1, 0>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %191 = "stablehlo.dot_general"(%188, %arg9) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %192 = "stablehlo.dot_general"(%191, %63) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x5xf32>) -> tensor<8x5xf32>
    %193 = "stablehlo.transpose"(%192) <{permutation = array<i64: 1, 0>}> : (tensor<8x5xf32>) -> tensor<5x8xf32>
    %194 = "stablehlo.dot_general"(%191, %40) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x5xf32>
    %195 = "stablehlo.broadcast_in_dim"(%67) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %196 = "stablehlo.multiply"(%194, %195) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %197 = "stablehlo.multiply"(%196, %58) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %198 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %199 = "stablehlo.reduce"(%197, %198) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg15: tensor<f32>, %arg16: tensor<f32>):
      %222 = "stablehlo.add"(%arg15, %arg16) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%222) : (tensor<f32>) -> ()
    }) : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %200 = "stablehlo.reshape"(%199) : (tensor<5xf32>) -> tensor<5x1xf32>
    %201 = "stablehlo.negate"(%200) : (tensor<5x1xf32>) -> tensor<5x1xf32>
    %202 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %203 = "stablehlo.divide"(%194, %202) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %204 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %205 = "stablehlo.reduce"(%201, %204) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg13: tensor<f32>, %arg14: tensor<f32>):
      %221 = "stablehlo.add"(%arg13, %arg14) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%221) : (tensor<f32>) -> ()
    }) : (tensor<5x1xf32>, tensor<f32>) -> tensor<5xf32>
    %206 = "stablehlo.broadcast_in_dim"(%205) <{broadcast_dimensions = array<i64: 0>}> : (tensor<5xf32>) -> tensor<5x5xf32>
    %207 = "stablehlo.add"(%203, %206) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %208 = "stablehlo.multiply"(%207, %58) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %209 = "func.call"(%47, %208) <{callee = @_where_0}> : (tensor<5x5xi1>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %210 = "stablehlo.constant"() <{value = dense<2.82842708> : tensor<f32>}> : () -> tensor<f32>
    %211 = "stablehlo.broadcast_in_dim"(%210) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x5xf32>
    %212 = "stablehlo.divide"(%209, %211) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %213 = "stablehlo.dot_general"(%212, %38) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %214 = "stablehlo.dot_general"(%212, %39) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %215 = "stablehlo.dot_general"(%193, %37) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
    %216 = "stablehlo.transpose"(%215) <{permutation = array<i64: 1, 0>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %217 = "stablehlo.dot_general"(%213, %37) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
    %218 = "stablehlo.transpose"(%217) <{permutation = array<i64: 1, 0>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %219 = "stablehlo.dot_general"(%214, %37) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
    %220 = "stablehlo.transpose"(%219) <{permutation = array<i64: 1, 0>}> : (tensor<8x8xf32>) -> tensor<8x8xf32>
    "func.return"(%220, %218, %216, %190, %155, %135) : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x16xf32>, tensor<16x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<5x5xi1>) -> tensor<5x5xi1>, res_attrs = [{}], sym_name = "tril", sym_visibility = "private"}> ({
  ^bb0(%arg5: tensor<5x5xi1>):
    %6 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<5x5xi32>
    %7 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<5x5xi32>
    %9 = "stablehlo.add"(%6, %8) : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi32>
    %10 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<5x5xi32>
    %11 = "stablehlo.compare"(%9, %10) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
    %12 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    %13 = "stablehlo.broadcast_in_dim"(%12) <{broadcast_dimensions = array<i64>}> : (tensor<i1>) -> tensor<5x5xi1>
    %14 = "stablehlo.select"(%11, %arg5, %13) : (tensor<5x5xi1>, tensor<5x5xi1>, tensor<5x5xi1>) -> tensor<5x5xi1>
    "func.return"(%14) : (tensor<5x5xi1>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<5x5xi1>, tensor<5x5xf32>, tensor<f32>) -> tensor<5x5xf32>, res_attrs = [{}], sym_name = "_where", sym_visibility = "private"}> ({
  ^bb0(%arg2: tensor<5x5xi1>, %arg3: tensor<5x5xf32>, %arg4: tensor<f32>):
    %3 = "stablehlo.convert"(%arg4) : (tensor<f32>) -> tensor<f32>
    %4 = "stablehlo.broadcast_in_dim"(%3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x5xf32>
    %5 = "stablehlo.select"(%arg2, %arg3, %4) : (tensor<5x5xi1>, tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    "func.return"(%5) : (tensor<5x5xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<5x5xi1>, tensor<5x5xf32>) -> tensor<5x5xf32>, res_attrs = [{}], sym_name = "_where_0", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<5x5xi1>, %arg1: tensor<5x5xf32>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<5x5xf32>
    %2 = "stablehlo.select"(%arg0, %arg1, %1) : (tensor<5x5xi1>, tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
    "func.return"(%2) : (tensor<5x5xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
