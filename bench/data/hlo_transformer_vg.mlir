module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<256x256xf32>, %arg3: tensor<256x256xf32>, %arg4: tensor<256x256xf32>, %arg5: tensor<256x256xf32>, %arg6: tensor<256xf32>, %arg7: tensor<256xf32>, %arg8: tensor<256x1024xf32>, %arg9: tensor<1024xf32>, %arg10: tensor<1024x256xf32>, %arg11: tensor<256xf32>, %arg12: tensor<8x128x256xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<256xf32> {jax.result_info = "result[1]"}, tensor<256xf32> {jax.result_info = "result[2]"}, tensor<256x256xf32> {jax.result_info = "result[3]"}, tensor<256x256xf32> {jax.result_info = "result[4]"}, tensor<256x256xf32> {jax.result_info = "result[5]"}, tensor<256x256xf32> {jax.result_info = "result[6]"}, tensor<256xf32> {jax.result_info = "result[7]"}, tensor<256xf32> {jax.result_info = "result[8]"}, tensor<256x1024xf32> {jax.result_info = "result[9]"}, tensor<1024xf32> {jax.result_info = "result[10]"}, tensor<1024x256xf32> {jax.result_info = "result[11]"}, tensor<256xf32> {jax.result_info = "result[12]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg12 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<8x128x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = call @_var(%arg12, %c) : (tensor<8x128x256xf32>, tensor<i32>) -> tensor<8x128x1xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %6 = stablehlo.subtract %arg12, %5 : tensor<8x128x256xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %8 = stablehlo.add %4, %7 : tensor<8x128x1xf32>
    %9 = stablehlo.rsqrt %8 : tensor<8x128x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %11 = stablehlo.multiply %6, %10 : tensor<8x128x256xf32>
    %12 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %14 = stablehlo.multiply %11, %13 : tensor<8x128x256xf32>
    %15 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %17 = stablehlo.add %14, %16 : tensor<8x128x256xf32>
    %18 = stablehlo.dot_general %17, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %19 = stablehlo.reshape %18 : (tensor<8x128x256xf32>) -> tensor<8x128x4x64xf32>
    %20 = stablehlo.dot_general %17, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %21 = stablehlo.reshape %20 : (tensor<8x128x256xf32>) -> tensor<8x128x4x64xf32>
    %22 = stablehlo.dot_general %17, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %23 = stablehlo.reshape %22 : (tensor<8x128x256xf32>) -> tensor<8x128x4x64xf32>
    %24 = stablehlo.dot_general %19, %21, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x128x4x64xf32>, tensor<8x128x4x64xf32>) -> tensor<8x4x128x128xf32>
    %cst_2 = stablehlo.constant dense<1.250000e-01> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x4x128x128xf32>
    %26 = stablehlo.multiply %24, %25 : tensor<8x4x128x128xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_3) applies stablehlo.maximum across dimensions = [3] : (tensor<8x4x128x128xf32>, tensor<f32>) -> tensor<8x4x128xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x4x128xf32>
    %29 = stablehlo.maximum %28, %27 : tensor<8x4x128xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1, 2] : (tensor<8x4x128xf32>) -> tensor<8x4x128x1xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1, 2, 3] : (tensor<8x4x128x1xf32>) -> tensor<8x4x128x128xf32>
    %32 = stablehlo.subtract %26, %31 : tensor<8x4x128x128xf32>
    %33 = stablehlo.exponential %32 : tensor<8x4x128x128xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_5) applies stablehlo.add across dimensions = [3] : (tensor<8x4x128x128xf32>, tensor<f32>) -> tensor<8x4x128xf32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [0, 1, 2] : (tensor<8x4x128xf32>) -> tensor<8x4x128x1xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1, 2, 3] : (tensor<8x4x128x1xf32>) -> tensor<8x4x128x128xf32>
    %37 = stablehlo.divide %33, %36 : tensor<8x4x128x128xf32>
    %38 = stablehlo.multiply %35, %35 : tensor<8x4x128x1xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x4x128x1xf32>
    %40 = stablehlo.divide %39, %38 : tensor<8x4x128x1xf32>
    %41 = stablehlo.dot_general %23, %37, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x128x4x64xf32>, tensor<8x4x128x128xf32>) -> tensor<8x4x64x128xf32>
    %42 = stablehlo.transpose %41, dims = [0, 3, 1, 2] : (tensor<8x4x64x128xf32>) -> tensor<8x128x4x64xf32>
    %43 = stablehlo.reshape %42 : (tensor<8x128x4x64xf32>) -> tensor<8x128x256xf32>
    %44 = stablehlo.dot_general %43, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %45 = stablehlo.add %arg12, %44 : tensor<8x128x256xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%45 init: %cst_7) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %cst_8 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %49 = stablehlo.divide %47, %48 : tensor<8x128x1xf32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %50:4 = call @_var_0(%45, %c_9) : (tensor<8x128x256xf32>, tensor<i32>) -> (tensor<8x128x1xf32>, tensor<8x128x256xf32>, tensor<f32>, tensor<i1>)
    %51 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %52 = stablehlo.subtract %45, %51 : tensor<8x128x256xf32>
    %cst_10 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %54 = stablehlo.add %50#0, %53 : tensor<8x128x1xf32>
    %55 = stablehlo.rsqrt %54 : tensor<8x128x1xf32>
    %56 = stablehlo.divide %55, %54 : tensor<8x128x1xf32>
    %cst_11 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %58 = stablehlo.multiply %57, %56 : tensor<8x128x1xf32>
    %59 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %60 = stablehlo.multiply %52, %59 : tensor<8x128x256xf32>
    %61 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %63 = stablehlo.multiply %60, %62 : tensor<8x128x256xf32>
    %64 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %66 = stablehlo.add %63, %65 : tensor<8x128x256xf32>
    %67 = stablehlo.dot_general %66, %arg8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x1024xf32>) -> tensor<8x128x1024xf32>
    %68 = stablehlo.broadcast_in_dim %arg9, dims = [2] : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2] : (tensor<1x1x1024xf32>) -> tensor<8x128x1024xf32>
    %70 = stablehlo.add %67, %69 : tensor<8x128x1024xf32>
    %71 = stablehlo.multiply %70, %70 : tensor<8x128x1024xf32>
    %72 = stablehlo.multiply %71, %70 : tensor<8x128x1024xf32>
    %73 = stablehlo.multiply %70, %70 : tensor<8x128x1024xf32>
    %cst_12 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %75 = stablehlo.multiply %74, %73 : tensor<8x128x1024xf32>
    %cst_13 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %77 = stablehlo.multiply %76, %72 : tensor<8x128x1024xf32>
    %78 = stablehlo.add %70, %77 : tensor<8x128x1024xf32>
    %cst_14 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %80 = stablehlo.multiply %79, %78 : tensor<8x128x1024xf32>
    %81 = stablehlo.tanh %80 : tensor<8x128x1024xf32>
    %cst_15 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %83 = stablehlo.subtract %82, %81 : tensor<8x128x1024xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %85 = stablehlo.add %84, %81 : tensor<8x128x1024xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %87 = stablehlo.multiply %86, %85 : tensor<8x128x1024xf32>
    %88 = stablehlo.multiply %70, %87 : tensor<8x128x1024xf32>
    %89 = stablehlo.dot_general %88, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x128x1024xf32>, tensor<1024x256xf32>) -> tensor<8x128x256xf32>
    %90 = stablehlo.add %45, %89 : tensor<8x128x256xf32>
    %91 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %93 = stablehlo.add %90, %92 : tensor<8x128x256xf32>
    %94 = stablehlo.multiply %93, %93 : tensor<8x128x256xf32>
    %cst_18 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<8x128x256xf32>
    %96 = stablehlo.multiply %95, %93 : tensor<8x128x256xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %97 = stablehlo.reduce(%94 init: %cst_19) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<f32>
    %cst_20 = stablehlo.constant dense<2.621440e+05> : tensor<f32>
    %98 = stablehlo.divide %97, %cst_20 : tensor<f32>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_22 = stablehlo.constant dense<2.621440e+05> : tensor<f32>
    %99 = stablehlo.divide %cst_21, %cst_22 : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [] : (tensor<f32>) -> tensor<8x128x256xf32>
    %101 = stablehlo.multiply %100, %96 : tensor<8x128x256xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %102 = stablehlo.reduce(%101 init: %cst_23) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %103 = stablehlo.reshape %102 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %104 = stablehlo.reduce(%103 init: %cst_24) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %105 = stablehlo.dot_general %101, %88, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<8x128x1024xf32>) -> tensor<256x1024xf32>
    %106 = stablehlo.transpose %105, dims = [1, 0] : (tensor<256x1024xf32>) -> tensor<1024x256xf32>
    %107 = stablehlo.dot_general %101, %arg10, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<1024x256xf32>) -> tensor<8x128x1024xf32>
    %108 = stablehlo.multiply %70, %107 : tensor<8x128x1024xf32>
    %109 = stablehlo.multiply %107, %87 : tensor<8x128x1024xf32>
    %cst_25 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %111 = stablehlo.multiply %110, %108 : tensor<8x128x1024xf32>
    %112 = stablehlo.multiply %111, %83 : tensor<8x128x1024xf32>
    %113 = stablehlo.multiply %112, %81 : tensor<8x128x1024xf32>
    %114 = stablehlo.add %112, %113 : tensor<8x128x1024xf32>
    %cst_26 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %116 = stablehlo.multiply %115, %114 : tensor<8x128x1024xf32>
    %117 = stablehlo.add %109, %116 : tensor<8x128x1024xf32>
    %cst_27 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %118 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %119 = stablehlo.multiply %118, %116 : tensor<8x128x1024xf32>
    %120 = stablehlo.multiply %119, %75 : tensor<8x128x1024xf32>
    %121 = stablehlo.add %117, %120 : tensor<8x128x1024xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %122 = stablehlo.reduce(%121 init: %cst_28) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x128x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %123 = stablehlo.reshape %122 : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %124 = stablehlo.reduce(%123 init: %cst_29) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %125 = stablehlo.dot_general %121, %66, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x1024xf32>, tensor<8x128x256xf32>) -> tensor<1024x256xf32>
    %126 = stablehlo.transpose %125, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
    %127 = stablehlo.dot_general %121, %arg8, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x1024xf32>, tensor<256x1024xf32>) -> tensor<8x128x256xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %128 = stablehlo.reduce(%127 init: %cst_30) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %129 = stablehlo.reshape %128 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %130 = stablehlo.reduce(%129 init: %cst_31) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %131 = stablehlo.multiply %60, %127 : tensor<8x128x256xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %132 = stablehlo.reduce(%131 init: %cst_32) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %133 = stablehlo.reshape %132 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %134 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %135 = stablehlo.multiply %127, %134 : tensor<8x128x256xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %136 = stablehlo.reduce(%133 init: %cst_33) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %137 = stablehlo.multiply %52, %135 : tensor<8x128x256xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.reduce(%137 init: %cst_34) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %139 = stablehlo.reshape %138 : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %140 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %141 = stablehlo.multiply %135, %140 : tensor<8x128x256xf32>
    %142 = stablehlo.multiply %139, %58 : tensor<8x128x1xf32>
    %143 = stablehlo.negate %141 : tensor<8x128x256xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %144 = stablehlo.reduce(%143 init: %cst_35) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %145 = stablehlo.reshape %144 : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %146 = stablehlo.add %101, %141 : tensor<8x128x256xf32>
    %147 = call @_var_2(%50#1, %50#2, %50#3, %142) : (tensor<8x128x256xf32>, tensor<f32>, tensor<i1>, tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %148 = stablehlo.add %146, %147 : tensor<8x128x256xf32>
    %cst_36 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %149 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %150 = stablehlo.divide %145, %149 : tensor<8x128x1xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %151 = stablehlo.reduce(%150 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<8x128x1xf32>, tensor<f32>) -> tensor<8x128xf32>
    %152 = stablehlo.broadcast_in_dim %151, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x256xf32>
    %153 = stablehlo.add %148, %152 : tensor<8x128x256xf32>
    %154 = stablehlo.dot_general %153, %43, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<8x128x256xf32>) -> tensor<256x256xf32>
    %155 = stablehlo.transpose %154, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %156 = stablehlo.dot_general %153, %arg5, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %157 = stablehlo.reshape %156 : (tensor<8x128x256xf32>) -> tensor<8x128x4x64xf32>
    %158 = stablehlo.transpose %157, dims = [0, 2, 3, 1] : (tensor<8x128x4x64xf32>) -> tensor<8x4x64x128xf32>
    %159 = stablehlo.dot_general %158, %23, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x4x64x128xf32>, tensor<8x128x4x64xf32>) -> tensor<8x4x128x128xf32>
    %160 = stablehlo.dot_general %158, %37, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<8x4x64x128xf32>, tensor<8x4x128x128xf32>) -> tensor<8x4x64x128xf32>
    %161 = stablehlo.transpose %160, dims = [0, 3, 1, 2] : (tensor<8x4x64x128xf32>) -> tensor<8x128x4x64xf32>
    %162 = stablehlo.broadcast_in_dim %40, dims = [0, 1, 2, 3] : (tensor<8x4x128x1xf32>) -> tensor<8x4x128x128xf32>
    %163 = stablehlo.multiply %159, %162 : tensor<8x4x128x128xf32>
    %164 = stablehlo.multiply %163, %33 : tensor<8x4x128x128xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %165 = stablehlo.reduce(%164 init: %cst_38) applies stablehlo.add across dimensions = [3] : (tensor<8x4x128x128xf32>, tensor<f32>) -> tensor<8x4x128xf32>
    %166 = stablehlo.reshape %165 : (tensor<8x4x128xf32>) -> tensor<8x4x128x1xf32>
    %167 = stablehlo.negate %166 : tensor<8x4x128x1xf32>
    %168 = stablehlo.broadcast_in_dim %35, dims = [0, 1, 2, 3] : (tensor<8x4x128x1xf32>) -> tensor<8x4x128x128xf32>
    %169 = stablehlo.divide %159, %168 : tensor<8x4x128x128xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %170 = stablehlo.reduce(%167 init: %cst_39) applies stablehlo.add across dimensions = [3] : (tensor<8x4x128x1xf32>, tensor<f32>) -> tensor<8x4x128xf32>
    %171 = stablehlo.broadcast_in_dim %170, dims = [0, 1, 2] : (tensor<8x4x128xf32>) -> tensor<8x4x128x128xf32>
    %172 = stablehlo.add %169, %171 : tensor<8x4x128x128xf32>
    %173 = stablehlo.multiply %172, %33 : tensor<8x4x128x128xf32>
    %cst_40 = stablehlo.constant dense<1.250000e-01> : tensor<f32>
    %174 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<8x4x128x128xf32>
    %175 = stablehlo.multiply %173, %174 : tensor<8x4x128x128xf32>
    %176 = stablehlo.dot_general %175, %19, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x128x128xf32>, tensor<8x128x4x64xf32>) -> tensor<8x4x128x64xf32>
    %177 = stablehlo.transpose %176, dims = [0, 2, 1, 3] : (tensor<8x4x128x64xf32>) -> tensor<8x128x4x64xf32>
    %178 = stablehlo.dot_general %175, %21, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x128x128xf32>, tensor<8x128x4x64xf32>) -> tensor<8x4x128x64xf32>
    %179 = stablehlo.transpose %178, dims = [0, 2, 1, 3] : (tensor<8x4x128x64xf32>) -> tensor<8x128x4x64xf32>
    %180 = stablehlo.reshape %161 : (tensor<8x128x4x64xf32>) -> tensor<8x128x256xf32>
    %181 = stablehlo.dot_general %180, %17, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<8x128x256xf32>) -> tensor<256x256xf32>
    %182 = stablehlo.transpose %181, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %183 = stablehlo.dot_general %180, %arg4, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %184 = stablehlo.reshape %177 : (tensor<8x128x4x64xf32>) -> tensor<8x128x256xf32>
    %185 = stablehlo.dot_general %184, %17, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<8x128x256xf32>) -> tensor<256x256xf32>
    %186 = stablehlo.transpose %185, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %187 = stablehlo.dot_general %184, %arg3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %188 = stablehlo.add %183, %187 : tensor<8x128x256xf32>
    %189 = stablehlo.reshape %179 : (tensor<8x128x4x64xf32>) -> tensor<8x128x256xf32>
    %190 = stablehlo.dot_general %189, %17, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<8x128x256xf32>) -> tensor<256x256xf32>
    %191 = stablehlo.transpose %190, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %192 = stablehlo.dot_general %189, %arg2, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %193 = stablehlo.add %188, %192 : tensor<8x128x256xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %194 = stablehlo.reduce(%193 init: %cst_41) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %195 = stablehlo.reshape %194 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %196 = stablehlo.reduce(%195 init: %cst_42) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %197 = stablehlo.multiply %11, %193 : tensor<8x128x256xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %198 = stablehlo.reduce(%197 init: %cst_43) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<256xf32>
    %199 = stablehlo.reshape %198 : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %200 = stablehlo.reduce(%199 init: %cst_44) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x256xf32>, tensor<f32>) -> tensor<256xf32>
    return %98, %200, %196, %191, %186, %182, %155, %136, %130, %126, %124, %106, %104 : tensor<f32>, tensor<256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>
  }
  func.func private @_var(%arg0: tensor<8x128x256xf32>, %arg1: tensor<i32>) -> tensor<8x128x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<8x128x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<8x128x256xf32>
    %6 = chlo.square %5 : tensor<8x128x256xf32> -> tensor<8x128x256xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<8x128x1xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = call @_where(%13, %12, %cst_4) : (tensor<i1>, tensor<8x128x1xf32>, tensor<f32>) -> tensor<8x128x1xf32>
    return %14 : tensor<8x128x1xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<8x128x1xf32>, %arg2: tensor<f32>) -> tensor<8x128x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<8x128x1xf32>
    return %2 : tensor<8x128x1xf32>
  }
  func.func private @_var_0(%arg0: tensor<8x128x256xf32>, %arg1: tensor<i32>) -> (tensor<8x128x1xf32>, tensor<8x128x256xf32>, tensor<f32>, tensor<i1>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<8x128x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<8x128x256xf32>
    %6 = chlo.square %5 : tensor<8x128x256xf32> -> tensor<8x128x256xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x128x256xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<8x128x256xf32>
    %9 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %10 = stablehlo.subtract %cst_2, %9 : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%6 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %13 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %14 = stablehlo.divide %12, %13 : tensor<8x128x1xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.compare GT, %10, %cst_4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %16 = call @_where_1(%15, %14, %cst_5) : (tensor<i1>, tensor<8x128x1xf32>, tensor<f32>) -> tensor<8x128x1xf32>
    return %16, %8, %10, %15 : tensor<8x128x1xf32>, tensor<8x128x256xf32>, tensor<f32>, tensor<i1>
  }
  func.func private @_where_1(%arg0: tensor<i1>, %arg1: tensor<8x128x1xf32>, %arg2: tensor<f32>) -> tensor<8x128x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<8x128x1xf32>
    return %2 : tensor<8x128x1xf32>
  }
  func.func private @_var_2(%arg0: tensor<8x128x256xf32>, %arg1: tensor<f32>, %arg2: tensor<i1>, %arg3: tensor<8x128x1xf32>) -> tensor<8x128x256xf32> {
    %0 = call @_where_3(%arg2, %arg3) : (tensor<i1>, tensor<8x128x1xf32>) -> tensor<8x128x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %2 = stablehlo.divide %0, %1 : tensor<8x128x1xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<8x128x1xf32>, tensor<f32>) -> tensor<8x128xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x256xf32>
    %5 = stablehlo.multiply %4, %arg0 : tensor<8x128x256xf32>
    %6 = stablehlo.negate %5 : tensor<8x128x256xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %8 = stablehlo.reshape %7 : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %cst_1 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<8x128x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<8x128x1xf32>, tensor<f32>) -> tensor<8x128xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x256xf32>
    %13 = stablehlo.add %5, %12 : tensor<8x128x256xf32>
    return %13 : tensor<8x128x256xf32>
  }
  func.func private @_where_3(%arg0: tensor<i1>, %arg1: tensor<8x128x1xf32>) -> tensor<8x128x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<i1>, tensor<8x128x1xf32>
    return %1 : tensor<8x128x1xf32>
  }
}
