#pragma once

#include "llm/llmcallrecorder.h"

#include <QList>

// Keeps call records in memory, in the order they finished.
class MemoryCallRecorder : public LlmCallRecorder
{
public:
    void record(const LlmCallRecord &call) override;
    const QList<LlmCallRecord> &calls() const { return m_calls; }
    void clear() { m_calls.clear(); }

private:
    QList<LlmCallRecord> m_calls;
};
