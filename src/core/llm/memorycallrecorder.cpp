#include "llm/memorycallrecorder.h"

void MemoryCallRecorder::record(const LlmCallRecord &call)
{
    m_calls.append(call);
}
