// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda_check.h"
#include "kernels.h"

#include <streamrace_emulator/kernel_registry.h>

#include <cmath>

namespace hpz {

namespace {

constexpr int kThreadsPerBlock = 128;

int blocksFor(int count) {
  return (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
}

// The arithmetic shared by the device kernels and their CPU twins, one output element each.

__host__ __device__ float denseForwardElement(const float* parameters, const float* input, int b,
                                              int o, int inFeatures, int outFeatures,
                                              int applyRelu) {
  const float* row = parameters + static_cast<long>(o) * inFeatures;
  float sum = parameters[static_cast<long>(outFeatures) * inFeatures + o];
  for (int i = 0; i < inFeatures; ++i) {
    sum = fmaf(row[i], input[static_cast<long>(b) * inFeatures + i], sum);
  }
  return applyRelu != 0 && sum < 0.0f ? 0.0f : sum;
}

__host__ __device__ float denseBackwardInputElement(const float* parameters,
                                                    const float* outputGradient, const float* input,
                                                    int b, int i, int inFeatures, int outFeatures) {
  if (input[static_cast<long>(b) * inFeatures + i] <= 0.0f) {
    return 0.0f;
  }
  float sum = 0.0f;
  for (int o = 0; o < outFeatures; ++o) {
    sum = fmaf(outputGradient[static_cast<long>(b) * outFeatures + o],
               parameters[static_cast<long>(o) * inFeatures + i], sum);
  }
  return sum;
}

// Element e < outFeatures * inFeatures is weight (o, i); the rest are biases.
__host__ __device__ float denseBackwardParameterElement(const float* outputGradient,
                                                        const float* input, int e, int batch,
                                                        int inFeatures, int outFeatures,
                                                        float scale) {
  const int weightCount = outFeatures * inFeatures;
  float sum = 0.0f;
  if (e < weightCount) {
    const int o = e / inFeatures;
    const int i = e % inFeatures;
    for (int b = 0; b < batch; ++b) {
      sum = fmaf(outputGradient[static_cast<long>(b) * outFeatures + o],
                 input[static_cast<long>(b) * inFeatures + i], sum);
    }
  } else {
    const int o = e - weightCount;
    for (int b = 0; b < batch; ++b) {
      sum += outputGradient[static_cast<long>(b) * outFeatures + o];
    }
  }
  return sum * scale;
}

__host__ __device__ void adamElement(float* parameters, const float* gradients, float* firstMoment,
                                     float* secondMoment, int j, AdamStep step) {
  const float gradient = gradients[j];
  const float m = step.beta1 * firstMoment[j] + (1.0f - step.beta1) * gradient;
  const float v = step.beta2 * secondMoment[j] + (1.0f - step.beta2) * gradient * gradient;
  firstMoment[j] = m;
  secondMoment[j] = v;
  const float correctedM = m / step.biasCorrection1;
  const float correctedV = v / step.biasCorrection2;
  parameters[j] -= step.learningRate * correctedM / (sqrtf(correctedV) + step.epsilon);
}

__host__ __device__ void mseLoss(const float* prediction, const float* target, float* gradient,
                                 float* loss, int count) {
  float sum = 0.0f;
  const float inverseCount = 1.0f / static_cast<float>(count);
  for (int j = 0; j < count; ++j) {
    const float difference = prediction[j] - target[j];
    sum = fmaf(difference, difference, sum);
    gradient[j] = 2.0f * difference * inverseCount;
  }
  *loss = sum * inverseCount;
}

// Block `block` of the [shard][block] numbering.
__host__ __device__ void quantizeBlock(const float* values, int shardSize, std::int8_t* quantized,
                                       float* scales, int block) {
  const int blocksPerShard = quantizationBlocks(shardSize);
  const int shardBegin = (block / blocksPerShard) * shardSize;
  const int begin = shardBegin + (block % blocksPerShard) * kQuantizationBlock;
  const int shardEnd = shardBegin + shardSize;
  const int end = begin + kQuantizationBlock < shardEnd ? begin + kQuantizationBlock : shardEnd;
  float largest = 0.0f;
  for (int j = begin; j < end; ++j) {
    largest = fmaxf(largest, fabsf(values[j]));
  }
  const float scale = largest / 127.0f;
  scales[block] = scale;
  for (int j = begin; j < end; ++j) {
    const float level = scale > 0.0f ? rintf(values[j] / scale) : 0.0f;
    quantized[j] = static_cast<std::int8_t>(fminf(127.0f, fmaxf(-127.0f, level)));
  }
}

__host__ __device__ float dequantizeElement(const std::int8_t* quantized, const float* scales,
                                            int shardSize, int j) {
  const int shard = j / shardSize;
  const int block = (j % shardSize) / kQuantizationBlock;
  return static_cast<float>(quantized[j]) * scales[shard * quantizationBlocks(shardSize) + block];
}

__global__ void quantize(const float* values, int shardSize, int shards, std::int8_t* quantized,
                         float* scales) {
  const int block = blockIdx.x * blockDim.x + threadIdx.x;
  if (block < quantizationBlocks(shardSize) * shards) {
    quantizeBlock(values, shardSize, quantized, scales, block);
  }
}

__host__ __device__ float dequantizeSumElement(const std::int8_t* quantized, const float* scales,
                                               int shardSize, int chunks, int sources, int index) {
  float sum = 0.0f;
  for (int source = 0; source < sources; ++source) {
    sum += dequantizeElement(quantized, scales, shardSize, source * chunks * shardSize + index);
  }
  return sum;
}

__global__ void dequantizeSum(const std::int8_t* quantized, const float* scales, int shardSize,
                              int chunks, int sources, float* sums) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < chunks * shardSize) {
    sums[index] = dequantizeSumElement(quantized, scales, shardSize, chunks, sources, index);
  }
}

__host__ __device__ float groupedShardElement(const float* gradient, int shardSize, int nodes,
                                              int ranksPerNode, int index) {
  const int chunk = index / shardSize;
  const int localRank = chunk / nodes;
  const int node = chunk % nodes;
  return gradient[(node * ranksPerNode + localRank) * shardSize + index % shardSize];
}

__global__ void groupShardsByLocalRank(const float* gradient, int shardSize, int nodes,
                                       int ranksPerNode, float* grouped) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < shardSize * nodes * ranksPerNode) {
    grouped[index] = groupedShardElement(gradient, shardSize, nodes, ranksPerNode, index);
  }
}

__global__ void dequantize(const std::int8_t* quantized, const float* scales, int shardSize,
                           int shards, float* values) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < shardSize * shards) {
    values[index] = dequantizeElement(quantized, scales, shardSize, index);
  }
}

__global__ void denseForward(const float* parameters, const float* input, float* output, int batch,
                             int inFeatures, int outFeatures, int applyRelu) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < batch * outFeatures) {
    output[index] = denseForwardElement(parameters, input, index / outFeatures, index % outFeatures,
                                        inFeatures, outFeatures, applyRelu);
  }
}

__global__ void mseLossKernel(const float* prediction, const float* target, float* gradient,
                              float* loss, int count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    mseLoss(prediction, target, gradient, loss, count);
  }
}

__global__ void denseBackwardInput(const float* parameters, const float* outputGradient,
                                   const float* input, float* inputGradient, int batch,
                                   int inFeatures, int outFeatures) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < batch * inFeatures) {
    inputGradient[index] =
        denseBackwardInputElement(parameters, outputGradient, input, index / inFeatures,
                                  index % inFeatures, inFeatures, outFeatures);
  }
}

__global__ void denseBackwardParameters(const float* outputGradient, const float* input,
                                        float* parameterGradient, int batch, int inFeatures,
                                        int outFeatures, float scale) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < outFeatures * (inFeatures + 1)) {
    parameterGradient[index] = denseBackwardParameterElement(outputGradient, input, index, batch,
                                                             inFeatures, outFeatures, scale);
  }
}

__global__ void adam(float* parameters, const float* gradients, float* firstMoment,
                     float* secondMoment, int count, AdamStep step) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < count) {
    adamElement(parameters, gradients, firstMoment, secondMoment, index, step);
  }
}

// CPU twins: the emulator runs a launch as one call, so each loops over the whole grid.

void denseForwardOnCpu(const StreamraceEmuLaunch&, const float* parameters, const float* input,
                       float* output, int batch, int inFeatures, int outFeatures, int applyRelu) {
  for (int index = 0; index < batch * outFeatures; ++index) {
    output[index] = denseForwardElement(parameters, input, index / outFeatures, index % outFeatures,
                                        inFeatures, outFeatures, applyRelu);
  }
}

void mseLossOnCpu(const StreamraceEmuLaunch&, const float* prediction, const float* target,
                  float* gradient, float* loss, int count) {
  mseLoss(prediction, target, gradient, loss, count);
}

void denseBackwardInputOnCpu(const StreamraceEmuLaunch&, const float* parameters,
                             const float* outputGradient, const float* input, float* inputGradient,
                             int batch, int inFeatures, int outFeatures) {
  for (int index = 0; index < batch * inFeatures; ++index) {
    inputGradient[index] =
        denseBackwardInputElement(parameters, outputGradient, input, index / inFeatures,
                                  index % inFeatures, inFeatures, outFeatures);
  }
}

void denseBackwardParametersOnCpu(const StreamraceEmuLaunch&, const float* outputGradient,
                                  const float* input, float* parameterGradient, int batch,
                                  int inFeatures, int outFeatures, float scale) {
  for (int index = 0; index < outFeatures * (inFeatures + 1); ++index) {
    parameterGradient[index] = denseBackwardParameterElement(outputGradient, input, index, batch,
                                                             inFeatures, outFeatures, scale);
  }
}

void adamOnCpu(const StreamraceEmuLaunch&, float* parameters, const float* gradients,
               float* firstMoment, float* secondMoment, int count, AdamStep step) {
  for (int index = 0; index < count; ++index) {
    adamElement(parameters, gradients, firstMoment, secondMoment, index, step);
  }
}

void quantizeOnCpu(const StreamraceEmuLaunch&, const float* values, int shardSize, int shards,
                   std::int8_t* quantized, float* scales) {
  for (int block = 0; block < quantizationBlocks(shardSize) * shards; ++block) {
    quantizeBlock(values, shardSize, quantized, scales, block);
  }
}

void dequantizeSumOnCpu(const StreamraceEmuLaunch&, const std::int8_t* quantized,
                        const float* scales, int shardSize, int chunks, int sources, float* sums) {
  for (int index = 0; index < chunks * shardSize; ++index) {
    sums[index] = dequantizeSumElement(quantized, scales, shardSize, chunks, sources, index);
  }
}

void groupShardsByLocalRankOnCpu(const StreamraceEmuLaunch&, const float* gradient, int shardSize,
                                 int nodes, int ranksPerNode, float* grouped) {
  for (int index = 0; index < shardSize * nodes * ranksPerNode; ++index) {
    grouped[index] = groupedShardElement(gradient, shardSize, nodes, ranksPerNode, index);
  }
}

void dequantizeOnCpu(const StreamraceEmuLaunch&, const std::int8_t* quantized, const float* scales,
                     int shardSize, int shards, float* values) {
  for (int index = 0; index < shardSize * shards; ++index) {
    values[index] = dequantizeElement(quantized, scales, shardSize, index);
  }
}

} // namespace

bool registerCpuKernels() {
  using streamrace_emulator::registerKernel;
  const bool forward = registerKernel<&denseForwardOnCpu>(denseForward);
  const bool loss = registerKernel<&mseLossOnCpu>(mseLossKernel);
  const bool backwardInput = registerKernel<&denseBackwardInputOnCpu>(denseBackwardInput);
  const bool backwardParameters =
      registerKernel<&denseBackwardParametersOnCpu>(denseBackwardParameters);
  const bool optimizer = registerKernel<&adamOnCpu>(adam);
  const bool quantizer = registerKernel<&quantizeOnCpu>(quantize);
  const bool dequantizer = registerKernel<&dequantizeOnCpu>(dequantize);
  const bool summer = registerKernel<&dequantizeSumOnCpu>(dequantizeSum);
  const bool grouper = registerKernel<&groupShardsByLocalRankOnCpu>(groupShardsByLocalRank);
  return forward && loss && backwardInput && backwardParameters && optimizer && quantizer &&
         dequantizer && summer && grouper;
}

void launchDenseForward(const float* parameters, const float* input, float* output, int batch,
                        int inFeatures, int outFeatures, bool applyRelu, cudaStream_t stream) {
  denseForward<<<blocksFor(batch * outFeatures), kThreadsPerBlock, 0, stream>>>(
      parameters, input, output, batch, inFeatures, outFeatures, applyRelu ? 1 : 0);
  CUDA_CHECK(cudaGetLastError());
}

void launchMseLoss(const float* prediction, const float* target, float* gradient, float* loss,
                   int count, cudaStream_t stream) {
  mseLossKernel<<<1, 1, 0, stream>>>(prediction, target, gradient, loss, count);
  CUDA_CHECK(cudaGetLastError());
}

void launchDenseBackwardInput(const float* parameters, const float* outputGradient,
                              const float* input, float* inputGradient, int batch, int inFeatures,
                              int outFeatures, cudaStream_t stream) {
  denseBackwardInput<<<blocksFor(batch * inFeatures), kThreadsPerBlock, 0, stream>>>(
      parameters, outputGradient, input, inputGradient, batch, inFeatures, outFeatures);
  CUDA_CHECK(cudaGetLastError());
}

void launchDenseBackwardParameters(const float* outputGradient, const float* input,
                                   float* parameterGradient, int batch, int inFeatures,
                                   int outFeatures, float scale, cudaStream_t stream) {
  denseBackwardParameters<<<blocksFor(outFeatures * (inFeatures + 1)), kThreadsPerBlock, 0,
                            stream>>>(outputGradient, input, parameterGradient, batch, inFeatures,
                                      outFeatures, scale);
  CUDA_CHECK(cudaGetLastError());
}

void launchAdam(float* parameters, const float* gradients, float* firstMoment, float* secondMoment,
                int count, AdamStep step, cudaStream_t stream) {
  adam<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(parameters, gradients, firstMoment,
                                                          secondMoment, count, step);
  CUDA_CHECK(cudaGetLastError());
}

void launchQuantize(const float* values, int shardSize, int shards, std::int8_t* quantized,
                    float* scales, cudaStream_t stream) {
  quantize<<<blocksFor(quantizationBlocks(shardSize) * shards), kThreadsPerBlock, 0, stream>>>(
      values, shardSize, shards, quantized, scales);
  CUDA_CHECK(cudaGetLastError());
}

void launchDequantize(const std::int8_t* quantized, const float* scales, int shardSize, int shards,
                      float* values, cudaStream_t stream) {
  dequantize<<<blocksFor(shardSize * shards), kThreadsPerBlock, 0, stream>>>(
      quantized, scales, shardSize, shards, values);
  CUDA_CHECK(cudaGetLastError());
}

void launchDequantizeSum(const std::int8_t* quantized, const float* scales, int shardSize,
                         int chunks, int sources, float* sums, cudaStream_t stream) {
  dequantizeSum<<<blocksFor(chunks * shardSize), kThreadsPerBlock, 0, stream>>>(
      quantized, scales, shardSize, chunks, sources, sums);
  CUDA_CHECK(cudaGetLastError());
}

void launchGroupShardsByLocalRank(const float* gradient, int shardSize, int nodes, int ranksPerNode,
                                  float* grouped, cudaStream_t stream) {
  groupShardsByLocalRank<<<blocksFor(shardSize * nodes * ranksPerNode), kThreadsPerBlock, 0,
                           stream>>>(gradient, shardSize, nodes, ranksPerNode, grouped);
  CUDA_CHECK(cudaGetLastError());
}

} // namespace hpz
