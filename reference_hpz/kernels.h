// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The model's device kernels, launched on a given stream. Each kernel has a CPU twin with the
// same arithmetic in the same order, registered with the streamrace emulator when it is the
// loaded CUDA runtime; on a GPU the registration does nothing. Every sum runs in a fixed order,
// so a run is reproducible bit for bit.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace hpz {

// Returns true when the CPU twins were registered (running on the emulator).
bool registerCpuKernels();

// output[b][o] = bias[o] + sum_i weights[o][i] * input[b][i], then max(0, .) when applyRelu.
void launchDenseForward(const float* parameters, const float* input, float* output, int batch,
                        int inFeatures, int outFeatures, bool applyRelu, cudaStream_t stream);

// loss = mean((prediction - target)^2); gradient = d loss / d prediction.
void launchMseLoss(const float* prediction, const float* target, float* gradient, float* loss,
                   int count, cudaStream_t stream);

// inputGradient[b][i] = (sum_o outputGradient[b][o] * weights[o][i]) * (input[b][i] > 0), the
// input being the ReLU output of the previous layer.
void launchDenseBackwardInput(const float* parameters, const float* outputGradient,
                              const float* input, float* inputGradient, int batch, int inFeatures,
                              int outFeatures, cudaStream_t stream);

// Gradient of the flat parameter (weights then biases), multiplied by `scale`.
void launchDenseBackwardParameters(const float* outputGradient, const float* input,
                                   float* parameterGradient, int batch, int inFeatures,
                                   int outFeatures, float scale, cudaStream_t stream);

struct AdamStep {
  float learningRate;
  float beta1;
  float beta2;
  float epsilon;
  float biasCorrection1;
  float biasCorrection2;
};

void launchAdam(float* parameters, const float* gradients, float* firstMoment, float* secondMoment,
                int count, AdamStep step, cudaStream_t stream);

// qwZ: symmetric int8 quantization in blocks of `quantizationBlock` values, one scale
// (max |x| / 127) per block; a shard of n values has ceil(n / quantizationBlock) blocks.
constexpr int kQuantizationBlock = 64;

__host__ __device__ inline int quantizationBlocks(int count) {
  return (count + kQuantizationBlock - 1) / kQuantizationBlock;
}

// `shards` consecutive shards of `shardSize` values each, blocks restarting at every shard;
// scales are laid out [shard][block].
void launchQuantize(const float* values, int shardSize, int shards, std::int8_t* quantized,
                    float* scales, cudaStream_t stream);

// The inverse for `shards` gathered shards of `shardSize` values each, laid out one after the
// other, with their scales gathered the same way.
void launchDequantize(const std::int8_t* quantized, const float* scales, int shardSize, int shards,
                      float* values, cudaStream_t stream);

// qgZ: sum of `sources` quantized contributions, each `chunks` shards of `shardSize` values
// ([source][chunk][value], scales [source][chunk][block]), into [chunk][value], adding the
// sources in order.
void launchDequantizeSum(const std::int8_t* quantized, const float* scales, int shardSize,
                         int chunks, int sources, float* sums, cudaStream_t stream);

// qgZ's first hop sends local rank g the shards {m * ranksPerNode + g} of every node m: the
// gradient [node][local rank][value] becomes [local rank][node][value].
void launchGroupShardsByLocalRank(const float* gradient, int shardSize, int nodes, int ranksPerNode,
                                  float* grouped, cudaStream_t stream);

} // namespace hpz
