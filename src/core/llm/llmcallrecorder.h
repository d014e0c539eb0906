#pragma once

#include "llm/llmcallrecord.h"

// Where ChatClient reports every finished call, successful or not. The session store implements it to persist
// calls; tests and the CLI use MemoryCallRecorder.
class LlmCallRecorder
{
public:
    virtual ~LlmCallRecorder() = default;
    virtual void record(const LlmCallRecord &call) = 0;
};
