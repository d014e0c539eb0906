#pragma once

#include "llm/llmcallrecord.h"
#include "store/columnlist.h"

// The llm_calls table's columns, once: its INSERT, its SELECT and the reader of an LlmCallRecord are built
// from this list (the row's own id and created_at are the database's).
class LlmCallTable
{
public:
    enum class Column
    {
        SessionId,
        CallId,
        Role,
        Model,
        Endpoint,
        Tag,
        RequestJson,
        Reply,
        Reasoning,
        FinishReason,
        PromptTokens,
        CompletionTokens,
        LatencyMs,
        Attempts,
        CostUsd,
        Error,
        StartedAt,
        Count
    };
    using Columns = ColumnList<Column, std::size_t(Column::Count)>;
    static const Columns &columns();

    static LlmCallRecord read(const Statement &q, int first = 0);
    // The call filed under `sessionId` (empty: none).
    static void bind(Statement &q, const QString &sessionId, const LlmCallRecord &call);
};
