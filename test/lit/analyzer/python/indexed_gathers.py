# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Advanced indexing: a subscript holding a tensor (`x[idx, target]`, `x[mask]`) gathers into a
# new tensor, reading its base when it is evaluated and sharing none of its bytes afterwards.
# Reducing the gathered copy asynchronously leaves the base free to be rewritten (the shape of a
# vocabulary-parallel cross entropy); a basic slice is a view, and rewriting its base while the
# reduction runs races. Gathering from a tensor still being reduced races too.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


def reduce_picked_logits(vocab_logits, target, group):
    rows = torch.arange(start=0, end=vocab_logits.shape[0], device=vocab_logits.device)
    picked = vocab_logits[rows, target].contiguous()
    outside = target < 0
    picked[outside] = 0.0
    handle = dist.all_reduce(picked, group=group, async_op=True)
    torch.exp(vocab_logits, out=vocab_logits)
    handle.wait()
    return picked


def reduce_masked_logits(vocab_logits, target, group):
    kept = vocab_logits[target >= 0]
    handle = dist.all_reduce(kept, group=group, async_op=True)
    vocab_logits.zero_()
    handle.wait()
    return kept


def reduce_a_column_racy(vocab_logits, group):
    picked = vocab_logits[:, 0]
    handle = dist.all_reduce(picked, group=group, async_op=True)
    torch.exp(vocab_logits, out=vocab_logits)
    # CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'vocab_logits' is read by torch.exp on the current stream while all_reduce on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-3]]:30: note: all_reduce reads and writes 'vocab_logits[*]' on the process group's stream (group=group) here
    handle.wait()
    return picked


def gather_while_reduced_racy(vocab_logits, target, group):
    handle = dist.all_reduce(vocab_logits, group=group, async_op=True)
    rows = torch.arange(start=0, end=vocab_logits.shape[0], device=vocab_logits.device)
    picked = vocab_logits[rows, target]
    # CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'vocab_logits' is read by indexing on the current stream while all_reduce on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-4]]:30: note: all_reduce reads and writes 'vocab_logits' on the process group's stream (group=group) here
    handle.wait()
    return picked
