module @jit_block_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8x8xf32>, %arg4: tensor<8x16xf32>, %arg5: tensor<16x8xf32>, %arg6: tensor<5x8xf32>) -> (tensor<8x8xf32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}, tensor<8x8xf32> {jax.result_info = "result[2]"}, tensor<8x8xf32> {jax.result_info = "result[3]"}, tensor<8x16xf32> {jax.result_info = "result[4]"}, tensor<16x8xf32> {jax.result_info = "result[5]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg6 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<5x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %5 = stablehlo.subtract %arg6, %4 : tensor<5x8xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<5x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<5x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %12 = stablehlo.subtract %arg6, %11 : tensor<5x8xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<5x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<5x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %17 = stablehlo.multiply %12, %16 : tensor<5x8xf32>
    %18 = stablehlo.dot_general %17, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %19 = stablehlo.dot_general %17, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %20 = stablehlo.dot_general %17, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %21 = stablehlo.dot_general %18, %19, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x5xf32>
    %cst_4 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %23 = stablehlo.divide %21, %22 : tensor<5x5xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %24 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<5x5xi1>
    %25 = call @tril(%24) : (tensor<5x5xi1>) -> tensor<5x5xi1>
    %cst_5 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %26 = call @_where(%25, %23, %cst_5) : (tensor<5x5xi1>, tensor<5x5xf32>, tensor<f32>) -> tensor<5x5xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %27 = stablehlo.reduce(%26 init: %cst_6) applies stablehlo.maximum across dimensions = [1] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %29 = stablehlo.maximum %28, %27 : tensor<5xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %32 = stablehlo.subtract %26, %31 : tensor<5x5xf32>
    %33 = stablehlo.exponential %32 : tensor<5x5xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %37 = stablehlo.divide %33, %36 : tensor<5x5xf32>
    %38 = stablehlo.multiply %35, %35 : tensor<5x1xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %40 = stablehlo.divide %39, %38 : tensor<5x1xf32>
    %41 = stablehlo.dot_general %37, %20, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %42 = stablehlo.dot_general %41, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %43 = stablehlo.add %arg6, %42 : tensor<5x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %44 = stablehlo.reduce(%43 init: %cst_10) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %cst_11 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %47 = stablehlo.divide %45, %46 : tensor<5x1xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %49 = stablehlo.subtract %43, %48 : tensor<5x8xf32>
    %50 = stablehlo.multiply %49, %49 : tensor<5x8xf32>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<5x8xf32>
    %52 = stablehlo.multiply %51, %49 : tensor<5x8xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.reduce(%50 init: %cst_13) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %cst_14 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %56 = stablehlo.divide %54, %55 : tensor<5x1xf32>
    %57 = stablehlo.broadcast_in_dim %47, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %58 = stablehlo.subtract %43, %57 : tensor<5x8xf32>
    %cst_15 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %60 = stablehlo.add %56, %59 : tensor<5x1xf32>
    %61 = stablehlo.rsqrt %60 : tensor<5x1xf32>
    %62 = stablehlo.divide %61, %60 : tensor<5x1xf32>
    %cst_16 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %64 = stablehlo.multiply %63, %62 : tensor<5x1xf32>
    %65 = stablehlo.broadcast_in_dim %61, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %66 = stablehlo.multiply %58, %65 : tensor<5x8xf32>
    %67 = stablehlo.dot_general %66, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
    %68 = stablehlo.multiply %67, %67 : tensor<5x16xf32>
    %69 = stablehlo.multiply %68, %67 : tensor<5x16xf32>
    %70 = stablehlo.multiply %67, %67 : tensor<5x16xf32>
    %cst_17 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %72 = stablehlo.multiply %71, %70 : tensor<5x16xf32>
    %cst_18 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %73 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %74 = stablehlo.multiply %73, %69 : tensor<5x16xf32>
    %75 = stablehlo.add %67, %74 : tensor<5x16xf32>
    %cst_19 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %77 = stablehlo.multiply %76, %75 : tensor<5x16xf32>
    %78 = stablehlo.tanh %77 : tensor<5x16xf32>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %80 = stablehlo.subtract %79, %78 : tensor<5x16xf32>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %82 = stablehlo.add %81, %78 : tensor<5x16xf32>
    %cst_22 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %84 = stablehlo.multiply %83, %82 : tensor<5x16xf32>
    %85 = stablehlo.multiply %67, %84 : tensor<5x16xf32>
    %86 = stablehlo.dot_general %85, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x16xf32>, tensor<16x8xf32>) -> tensor<5x8xf32>
    %87 = stablehlo.add %43, %86 : tensor<5x8xf32>
    %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<5x8xf32>
    %89 = stablehlo.multiply %88, %87 : tensor<5x8xf32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %90 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<5x8xf32>
    %91 = stablehlo.multiply %90, %89 : tensor<5x8xf32>
    %92 = stablehlo.dot_general %91, %85, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<5x16xf32>) -> tensor<8x16xf32>
    %93 = stablehlo.transpose %92, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %94 = stablehlo.dot_general %91, %arg5, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<16x8xf32>) -> tensor<5x16xf32>
    %95 = stablehlo.multiply %67, %94 : tensor<5x16xf32>
    %96 = stablehlo.multiply %94, %84 : tensor<5x16xf32>
    %cst_25 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %98 = stablehlo.multiply %97, %95 : tensor<5x16xf32>
    %99 = stablehlo.multiply %98, %80 : tensor<5x16xf32>
    %100 = stablehlo.multiply %99, %78 : tensor<5x16xf32>
    %101 = stablehlo.add %99, %100 : tensor<5x16xf32>
    %cst_26 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %103 = stablehlo.multiply %102, %101 : tensor<5x16xf32>
    %104 = stablehlo.add %96, %103 : tensor<5x16xf32>
    %cst_27 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %106 = stablehlo.multiply %105, %103 : tensor<5x16xf32>
    %107 = stablehlo.multiply %106, %72 : tensor<5x16xf32>
    %108 = stablehlo.add %104, %107 : tensor<5x16xf32>
    %109 = stablehlo.dot_general %108, %66, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x16xf32>, tensor<5x8xf32>) -> tensor<16x8xf32>
    %110 = stablehlo.transpose %109, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %111 = stablehlo.dot_general %108, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x16xf32>, tensor<8x16xf32>) -> tensor<5x8xf32>
    %112 = stablehlo.multiply %58, %111 : tensor<5x8xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %113 = stablehlo.reduce(%112 init: %cst_28) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %114 = stablehlo.reshape %113 : (tensor<5xf32>) -> tensor<5x1xf32>
    %115 = stablehlo.broadcast_in_dim %61, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %116 = stablehlo.multiply %111, %115 : tensor<5x8xf32>
    %117 = stablehlo.multiply %114, %64 : tensor<5x1xf32>
    %118 = stablehlo.negate %116 : tensor<5x8xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %119 = stablehlo.reduce(%118 init: %cst_29) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %120 = stablehlo.reshape %119 : (tensor<5xf32>) -> tensor<5x1xf32>
    %121 = stablehlo.add %91, %116 : tensor<5x8xf32>
    %cst_30 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %122 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %123 = stablehlo.divide %117, %122 : tensor<5x1xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %124 = stablehlo.reduce(%123 init: %cst_31) applies stablehlo.add across dimensions = [1] : (tensor<5x1xf32>, tensor<f32>) -> tensor<5xf32>
    %125 = stablehlo.broadcast_in_dim %124, dims = [0] : (tensor<5xf32>) -> tensor<5x8xf32>
    %126 = stablehlo.multiply %125, %52 : tensor<5x8xf32>
    %127 = stablehlo.negate %126 : tensor<5x8xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %128 = stablehlo.reduce(%127 init: %cst_32) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %129 = stablehlo.reshape %128 : (tensor<5xf32>) -> tensor<5x1xf32>
    %130 = stablehlo.add %121, %126 : tensor<5x8xf32>
    %131 = stablehlo.add %120, %129 : tensor<5x1xf32>
    %cst_33 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %133 = stablehlo.divide %131, %132 : tensor<5x1xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %134 = stablehlo.reduce(%133 init: %cst_34) applies stablehlo.add across dimensions = [1] : (tensor<5x1xf32>, tensor<f32>) -> tensor<5xf32>
    %135 = stablehlo.broadcast_in_dim %134, dims = [0] : (tensor<5xf32>) -> tensor<5x8xf32>
    %136 = stablehlo.add %130, %135 : tensor<5x8xf32>
    %137 = stablehlo.dot_general %136, %41, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
    %138 = stablehlo.transpose %137, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %139 = stablehlo.dot_general %136, %arg3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %140 = stablehlo.dot_general %139, %37, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<5x5xf32>) -> tensor<8x5xf32>
    %141 = stablehlo.transpose %140, dims = [1, 0] : (tensor<8x5xf32>) -> tensor<5x8xf32>
    %142 = stablehlo.dot_general %139, %20, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<5x5xf32>
    %143 = stablehlo.broadcast_in_dim %40, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %144 = stablehlo.multiply %142, %143 : tensor<5x5xf32>
    %145 = stablehlo.multiply %144, %33 : tensor<5x5xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %146 = stablehlo.reduce(%145 init: %cst_35) applies stablehlo.add across dimensions = [1] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %147 = stablehlo.reshape %146 : (tensor<5xf32>) -> tensor<5x1xf32>
    %148 = stablehlo.negate %147 : tensor<5x1xf32>
    %149 = stablehlo.broadcast_in_dim %35, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %150 = stablehlo.divide %142, %149 : tensor<5x5xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %151 = stablehlo.reduce(%148 init: %cst_36) applies stablehlo.add across dimensions = [1] : (tensor<5x1xf32>, tensor<f32>) -> tensor<5xf32>
    %152 = stablehlo.broadcast_in_dim %151, dims = [0] : (tensor<5xf32>) -> tensor<5x5xf32>
    %153 = stablehlo.add %150, %152 : tensor<5x5xf32>
    %154 = stablehlo.multiply %153, %33 : tensor<5x5xf32>
    %155 = call @_where_0(%25, %154) : (tensor<5x5xi1>, tensor<5x5xf32>) -> tensor<5x5xf32>
    %cst_37 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %156 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %157 = stablehlo.divide %155, %156 : tensor<5x5xf32>
    %158 = stablehlo.dot_general %157, %18, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %159 = stablehlo.dot_general %157, %19, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %160 = stablehlo.dot_general %141, %17, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
    %161 = stablehlo.transpose %160, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %162 = stablehlo.dot_general %158, %17, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
    %163 = stablehlo.transpose %162, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %164 = stablehlo.dot_general %159, %17, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
    %165 = stablehlo.transpose %164, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %165, %163, %161, %138, %110, %93 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x16xf32>, tensor<16x8xf32>
  }
  func.func private @tril(%arg0: tensor<5x5xi1>) -> tensor<5x5xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<5x5xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x5xi32>
    %2 = stablehlo.add %0, %1 : tensor<5x5xi32>
    %3 = stablehlo.iota dim = 1 : tensor<5x5xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<5x5xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<5x5xi1>, tensor<5x5xi1>
    return %6 : tensor<5x5xi1>
  }
  func.func private @_where(%arg0: tensor<5x5xi1>, %arg1: tensor<5x5xf32>, %arg2: tensor<f32>) -> tensor<5x5xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<5x5xi1>, tensor<5x5xf32>
    return %2 : tensor<5x5xf32>
  }
  func.func private @_where_0(%arg0: tensor<5x5xi1>, %arg1: tensor<5x5xf32>) -> tensor<5x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<5x5xi1>, tensor<5x5xf32>
    return %1 : tensor<5x5xf32>
  }
}
