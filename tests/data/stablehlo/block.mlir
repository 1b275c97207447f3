module @jit_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8x8xf32>, %arg4: tensor<8x16xf32>, %arg5: tensor<16x8xf32>, %arg6: tensor<5x8xf32>) -> (tensor<5x8xf32> {jax.result_info = "result"}) {
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
    %38 = stablehlo.dot_general %37, %20, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
    %39 = stablehlo.dot_general %38, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x8xf32>) -> tensor<5x8xf32>
    %40 = stablehlo.add %arg6, %39 : tensor<5x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.reduce(%40 init: %cst_9) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %cst_10 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %44 = stablehlo.divide %42, %43 : tensor<5x1xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %46 = stablehlo.subtract %40, %45 : tensor<5x8xf32>
    %47 = stablehlo.multiply %46, %46 : tensor<5x8xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %48 = stablehlo.reduce(%47 init: %cst_11) applies stablehlo.add across dimensions = [1] : (tensor<5x8xf32>, tensor<f32>) -> tensor<5xf32>
    %49 = stablehlo.broadcast_in_dim %48, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %cst_12 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %51 = stablehlo.divide %49, %50 : tensor<5x1xf32>
    %52 = stablehlo.broadcast_in_dim %44, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %53 = stablehlo.subtract %40, %52 : tensor<5x8xf32>
    %cst_13 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %55 = stablehlo.add %51, %54 : tensor<5x1xf32>
    %56 = stablehlo.rsqrt %55 : tensor<5x1xf32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %58 = stablehlo.multiply %53, %57 : tensor<5x8xf32>
    %59 = stablehlo.dot_general %58, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
    %60 = stablehlo.multiply %59, %59 : tensor<5x16xf32>
    %61 = stablehlo.multiply %60, %59 : tensor<5x16xf32>
    %cst_14 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %63 = stablehlo.multiply %62, %61 : tensor<5x16xf32>
    %64 = stablehlo.add %59, %63 : tensor<5x16xf32>
    %cst_15 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %66 = stablehlo.multiply %65, %64 : tensor<5x16xf32>
    %67 = stablehlo.tanh %66 : tensor<5x16xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %69 = stablehlo.add %68, %67 : tensor<5x16xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %71 = stablehlo.multiply %70, %69 : tensor<5x16xf32>
    %72 = stablehlo.multiply %59, %71 : tensor<5x16xf32>
    %73 = stablehlo.dot_general %72, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x16xf32>, tensor<16x8xf32>) -> tensor<5x8xf32>
    %74 = stablehlo.add %40, %73 : tensor<5x8xf32>
    return %74 : tensor<5x8xf32>
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
}
