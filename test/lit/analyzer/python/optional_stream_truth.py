# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A stream that may be None, tested by its truth (`if self.stream:`), is tested for being given:
# `torch.cuda.stream(None)` changes nothing, so where the stream is None the work in its context
# runs on the current stream, and where it is given the test's branch makes it wait. TorchRec's
# semi-synchronous pipeline runs each embedding backward this way, through the stream function
# it keeps in an attribute (`self._stream_context = torch.cuda.stream`).
# RUN: %check_streamrace %s %t
import torch


class SideBackwardWaitsWhenGiven:
    def __init__(self, use_side_stream):
        self.stream = torch.cuda.Stream() if use_side_stream else None

    def backward(self, loss, embeddings, grads):
        default_stream = torch.cuda.current_stream()
        loss.backward()
        with torch.cuda.stream(self.stream):
            if self.stream:
                self.stream.wait_stream(default_stream)
            torch.autograd.backward(embeddings, grads)


class SideBackwardNeverWaits:
    def __init__(self, use_side_stream):
        self.stream = torch.cuda.Stream() if use_side_stream else None

    def backward(self, loss, embeddings, grads):
        loss.backward()
        with torch.cuda.stream(self.stream):
            torch.autograd.backward(embeddings, grads)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: '*.grad' is written by torch.autograd.backward on stream 'self.stream' while backward on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:9: note: backward writes '*.grad' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.stream' wait for the current stream before entering it: `self.stream.wait_stream(torch.cuda.current_stream())`


class WrappedContextWaitsWhenGiven:
    def __init__(self, use_side_stream):
        self._stream_context = torch.cuda.stream
        self.embedding_stream = torch.cuda.Stream() if use_side_stream else None

    def backward(self, loss, embeddings, grads):
        default_stream = torch.cuda.current_stream()
        loss.backward()
        stream = self.embedding_stream
        with self._stream_context(stream):
            if stream:
                stream.wait_stream(default_stream)
            torch.autograd.backward(embeddings, grads)


class WrappedContextNeverWaits:
    def __init__(self, use_side_stream):
        self._stream_context = torch.cuda.stream
        self.lookup_stream = torch.cuda.Stream() if use_side_stream else None

    def backward(self, loss, embeddings, grads):
        loss.backward()
        side = self.lookup_stream
        with self._stream_context(side):
            torch.autograd.backward(embeddings, grads)
            # CHECK-MESSAGES: :[[@LINE-1]]:13: warning: '*.grad' is written by torch.autograd.backward on stream 'self.lookup_stream' while backward on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-5]]:9: note: backward writes '*.grad' on the current stream here
            # CHECK-MESSAGES: :[[@LINE-3]]:13: note: make stream 'self.lookup_stream' wait for the current stream before entering it: `self.lookup_stream.wait_stream(torch.cuda.current_stream())`
