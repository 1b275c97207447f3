module @jit_rnn_loss_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<6x3xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:6 = stablehlo.while(%iterArg = %arg3, %iterArg_4 = %arg0, %iterArg_5 = %arg1, %iterArg_6 = %c, %iterArg_7 = %arg2, %iterArg_8 = %0) : tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4xf32>, tensor<6x4xf32>
    cond {
      %c_9 = stablehlo.constant dense<6> : tensor<i32>
      %6 = stablehlo.compare LT, %iterArg_6, %c_9, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %6 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_6) : (tensor<6x3xf32>, tensor<i32>) -> tensor<3xf32>
      %7:2 = func.call @closed_call(%iterArg_4, %iterArg_5, %iterArg_7, %6) : (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      %8 = func.call @dynamic_update_index_in_dim(%iterArg_8, %7#1, %iterArg_6) : (tensor<6x4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<6x4xf32>
      %c_9 = stablehlo.constant dense<1> : tensor<i32>
      %9 = stablehlo.add %iterArg_6, %c_9 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_4, %iterArg_5, %9, %7#0, %8 : tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4xf32>, tensor<6x4xf32>
    }
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %5:8 = stablehlo.while(%iterArg = %2, %iterArg_4 = %1#5, %iterArg_5 = %arg3, %iterArg_6 = %arg0, %iterArg_7 = %arg1, %iterArg_8 = %c_3, %iterArg_9 = %4, %iterArg_10 = %3) : tensor<6xf32>, tensor<6x4xf32>, tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<4xf32>
    cond {
      %c_11 = stablehlo.constant dense<6> : tensor<i32>
      %6 = stablehlo.compare LT, %iterArg_8, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %c_11 = stablehlo.constant dense<6> : tensor<i32>
      %6 = stablehlo.subtract %c_11, %iterArg_8 : tensor<i32>
      %c_12 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.subtract %6, %c_12 : tensor<i32>
      %8 = func.call @dynamic_index_in_dim_0(%iterArg, %7) : (tensor<6xf32>, tensor<i32>) -> tensor<f32>
      %9 = func.call @dynamic_index_in_dim_1(%iterArg_4, %7) : (tensor<6x4xf32>, tensor<i32>) -> tensor<4xf32>
      %10 = func.call @dynamic_index_in_dim(%iterArg_5, %7) : (tensor<6x3xf32>, tensor<i32>) -> tensor<3xf32>
      %11:2 = func.call @closed_call_2(%iterArg_6, %iterArg_7, %iterArg_9, %iterArg_10, %8, %9, %10) : (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
      %c_13 = stablehlo.constant dense<1> : tensor<i32>
      %12 = stablehlo.add %iterArg_8, %c_13 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %12, %11#0, %11#1 : tensor<6xf32>, tensor<6x4xf32>, tensor<6x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<4xf32>
    }
    return %5#6 : tensor<4x4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x3xf32>, %arg1: tensor<i32>) -> tensor<3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 3] : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x4xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<3xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %2 = stablehlo.add %0, %1 : tensor<4xf32>
    %3 = stablehlo.tanh %2 : tensor<4xf32>
    return %3, %arg2 : tensor<4xf32>, tensor<4xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i32>) -> tensor<6x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
    return %1 : tensor<6x4xf32>
  }
  func.func private @dynamic_index_in_dim_0(%arg0: tensor<6xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<6xf32>, tensor<i32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @dynamic_index_in_dim_1(%arg0: tensor<6x4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 4] : (tensor<6x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @closed_call_2(%arg0: tensor<4x4xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<4x4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<f32>, %arg5: tensor<4xf32>, %arg6: tensor<3xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
    %0 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.add %arg3, %0 : tensor<4xf32>
    %2:5 = stablehlo.optimization_barrier %arg0, %arg1, %arg5, %arg6, %1 : tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>
    %3 = stablehlo.dot_general %2#2, %2#0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %4 = stablehlo.dot_general %2#3, %2#1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %5 = stablehlo.add %3, %4 : tensor<4xf32>
    %6 = stablehlo.tanh %5 : tensor<4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %8 = stablehlo.subtract %7, %6 : tensor<4xf32>
    %9 = stablehlo.multiply %2#4, %8 : tensor<4xf32>
    %10 = stablehlo.multiply %9, %6 : tensor<4xf32>
    %11 = stablehlo.add %9, %10 : tensor<4xf32>
    %12 = stablehlo.dot_general %11, %2#2, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %14 = stablehlo.dot_general %11, %2#0, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %15 = stablehlo.add %arg2, %13 : tensor<4x4xf32>
    return %15, %14 : tensor<4x4xf32>, tensor<4xf32>
  }
}
