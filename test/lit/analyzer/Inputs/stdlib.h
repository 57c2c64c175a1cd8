// Mock of the C allocation functions the analyzer tests use.
#pragma once
typedef __SIZE_TYPE__ size_t;
extern "C" {
void* malloc(size_t size);
void free(void* ptr);
int printf(const char* format, ...);
void exit(int status) __attribute__((noreturn));
void abort(void) __attribute__((noreturn));
}
