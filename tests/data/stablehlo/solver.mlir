module @jit_solver attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4xf32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}) {
    %0 = call @_diag(%arg0) : (tensor<4x4xf32>) -> tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:7 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1, %iterArg_1 = %arg0, %iterArg_2 = %0, %iterArg_3 = %arg1, %iterArg_4 = %c, %iterArg_5 = %1) : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>
    cond {
      %c_6 = stablehlo.constant dense<100> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_4, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %4 = stablehlo.dot_general %iterArg, %iterArg_5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %5 = stablehlo.subtract %4, %iterArg_0 : tensor<4xf32>
      %6 = func.call @norm(%5) : (tensor<4xf32>) -> tensor<f32>
      %cst_7 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
      %7 = stablehlo.compare GT, %6, %cst_7, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c_8 = stablehlo.constant dense<false> : tensor<i1>
      %8 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i1>) -> tensor<i1>
      %9 = stablehlo.compare NE, %3, %8, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %10 = stablehlo.convert %9 : tensor<i1>
      %11 = stablehlo.and %10, %7 : tensor<i1>
      stablehlo.return %11 : tensor<i1>
    } do {
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg_4, %c_6 : tensor<i32>
      %4 = stablehlo.dot_general %iterArg_1, %iterArg_5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %5 = stablehlo.multiply %iterArg_2, %iterArg_5 : tensor<4xf32>
      %6 = stablehlo.subtract %4, %5 : tensor<4xf32>
      %7 = stablehlo.subtract %iterArg_3, %6 : tensor<4xf32>
      %8 = stablehlo.divide %7, %iterArg_2 : tensor<4xf32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %iterArg_2, %iterArg_3, %3, %8 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>
    }
    return %2#5, %2#6 : tensor<i32>, tensor<4xf32>
  }
  func.func private @_diag(%arg0: tensor<4x4xf32>) -> tensor<4xf32> {
    %0 = call @diagonal(%arg0) : (tensor<4x4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @diagonal(%arg0: tensor<4x4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %3 = stablehlo.add %0, %2 : tensor<4x4xi32>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %5 = stablehlo.convert %4 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %6 = "stablehlo.case"(%c_0) ({
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_1 : tensor<i32>
    }, {
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_1 : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %7 = "stablehlo.case"(%6) ({
      %8 = stablehlo.iota dim = 0 : tensor<4xi32>
      %9 = stablehlo.iota dim = 0 : tensor<4xi32>
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      %10 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %11 = stablehlo.compare LT, %8, %10, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
      %c_2 = stablehlo.constant dense<4> : tensor<i32>
      %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %13 = stablehlo.add %8, %12 : tensor<4xi32>
      %14 = stablehlo.select %11, %13, %8 : tensor<4xi1>, tensor<4xi32>
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %15 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %16 = stablehlo.compare LT, %9, %15, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
      %c_4 = stablehlo.constant dense<4> : tensor<i32>
      %17 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<4xi32>
      %18 = stablehlo.add %9, %17 : tensor<4xi32>
      %19 = stablehlo.select %16, %18, %9 : tensor<4xi1>, tensor<4xi32>
      %20 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
      %21 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
      %22 = stablehlo.concatenate %20, %21, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
      %23 = "stablehlo.gather"(%arg0, %22) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<4x4xf32>, tensor<4x2xi32>) -> tensor<4xf32>
      stablehlo.return %23 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %7 : tensor<4xf32>
  }
  func.func private @norm(%arg0: tensor<4xf32>) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.sqrt %1 : tensor<f32>
    return %2 : tensor<f32>
  }
}
