# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Where `x is None` holds, x names no object, nor does an attribute the path bound to x's
# object. TorchRec's pipeline keeps the loader's batch in an attribute, then replaces it by its
# copy on the copy stream when the batch is not None: joined, the attribute holds that copy (or
# nothing), not "a batch or its copy", and the copy's stream is still known where the step
# reads it. The racy pipeline drops the batch its step read without record_stream, so the next
# copy may take its block; its twin records the read.
# RUN: %check_streamrace %s %t
import torch


class ConnectingPipeline:
    def __init__(self, model):
        self.model = model
        self.copy_stream = torch.cuda.Stream()
        self.batch = None
        self.connected = False

    def connect(self, batches):
        batch = next(batches)
        self.batch = batch
        if batch is not None:
            with torch.cuda.stream(self.copy_stream):
                self.batch = batch.to("cuda", non_blocking=True)
        self.connected = True

    def copy_in(self, batch):
        with torch.cuda.stream(self.copy_stream):
            self.batch = batch.to("cuda", non_blocking=True)
            # CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'self.batch' is made on stream 'self.copy_stream': the caching allocator may give it the block of 'self.batch', handed to the current stream without record_stream and no longer held, while model on the current stream may still be reading it [streamrace-free-while-pending]
            # CHECK-MESSAGES: :[[@LINE+14]]:13: note: 'copy_in' is called here
            # CHECK-MESSAGES: :[[@LINE+10]]:26: note: model reads 'self.batch' on the current stream here
            # CHECK-MESSAGES: :[[@LINE+9]]:26: note: 'self.batch' is handed to the current stream here: record that use (`record_stream`) before handing it over

    def progress_unrecorded(self, batches):
        if not self.connected:
            self.connect(batches)
        next_batch = next(batches)
        batch = self.batch
        if batch is not None:
            torch.cuda.current_stream().wait_stream(self.copy_stream)
        out = self.model(batch)
        self.batch = batch = next_batch
        if batch is not None:
            self.copy_in(batch)
        return out


class RecordingPipeline:
    def __init__(self, model):
        self.model = model
        self.upload_stream = torch.cuda.Stream()
        self.inputs = None
        self.started = False

    def start(self, loader):
        inputs = next(loader)
        self.inputs = inputs
        if inputs is not None:
            with torch.cuda.stream(self.upload_stream):
                self.inputs = inputs.to("cuda", non_blocking=True)
        self.started = True

    def upload(self, inputs):
        with torch.cuda.stream(self.upload_stream):
            self.inputs = inputs.to("cuda", non_blocking=True)

    def progress_recorded(self, loader):
        if not self.started:
            self.start(loader)
        next_inputs = next(loader)
        inputs = self.inputs
        if inputs is not None:
            torch.cuda.current_stream().wait_stream(self.upload_stream)
            inputs.record_stream(torch.cuda.current_stream())
        out = self.model(inputs)
        self.inputs = inputs = next_inputs
        if inputs is not None:
            self.upload(inputs)
        return out
