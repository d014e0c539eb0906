#include "store/llmcalltable.h"

#include "store/sqlvalues.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {
using C = LlmCallTable::Column;
constexpr LlmCallTable::Columns list({{{C::SessionId, "session_id"},
                                       {C::CallId, "call_id"},
                                       {C::Role, "role"},
                                       {C::Model, "model"},
                                       {C::Endpoint, "endpoint"},
                                       {C::Tag, "tag"},
                                       {C::RequestJson, "request_json"},
                                       {C::Reply, "reply"},
                                       {C::Reasoning, "reasoning"},
                                       {C::FinishReason, "finish_reason"},
                                       {C::PromptTokens, "prompt_tokens"},
                                       {C::CompletionTokens, "completion_tokens"},
                                       {C::LatencyMs, "latency_ms"},
                                       {C::Attempts, "attempts"},
                                       {C::CostUsd, "cost_usd"},
                                       {C::Error, "error"},
                                       {C::StartedAt, "started_at"}}});
static_assert(list.inOrder());
} // namespace

const LlmCallTable::Columns &LlmCallTable::columns()
{
    return list;
}

LlmCallRecord LlmCallTable::read(const Statement &q, int first)
{
    const ColumnRow<C> row(q, first);
    LlmCallRecord r;
    r.callId = row.value(C::CallId).toULongLong();
    r.role = row.text(C::Role);
    r.model = row.text(C::Model);
    r.endpoint = row.text(C::Endpoint);
    r.tag = row.text(C::Tag);
    for (const QJsonValue &m : QJsonDocument::fromJson(row.text(C::RequestJson).toUtf8()).array())
        r.messages.append({m[QStringLiteral("role")].toString(), m[QStringLiteral("content")].toString()});
    r.reply = row.text(C::Reply);
    r.reasoning = row.text(C::Reasoning);
    r.finishReason = row.text(C::FinishReason);
    if (!row.isNull(C::PromptTokens) && !row.isNull(C::CompletionTokens))
        r.usage = TokenUsage{row.integer64(C::PromptTokens), row.integer64(C::CompletionTokens)};
    r.latencyMs = row.integer64(C::LatencyMs);
    r.attempts = row.integer(C::Attempts);
    if (!row.isNull(C::CostUsd))
        r.costUsd = row.real(C::CostUsd);
    r.error = row.text(C::Error);
    if (!row.isNull(C::StartedAt))
        r.startedUtc = SqlValues::timeFrom(row.value(C::StartedAt));
    return r;
}

void LlmCallTable::bind(Statement &q, const QString &sessionId, const LlmCallRecord &call)
{
    QJsonArray messages;
    for (const ChatMessage &m : call.messages)
        messages.append(
            QJsonObject{{QStringLiteral("role"), m.role}, {QStringLiteral("content"), m.content}});
    q.bind(list.placeholder(C::SessionId), Statement::orNull(sessionId))
        .bind(list.placeholder(C::CallId), static_cast<qint64>(call.callId))
        .bind(list.placeholder(C::Role), call.role)
        .bind(list.placeholder(C::Model), call.model)
        .bind(list.placeholder(C::Endpoint), call.endpoint)
        .bind(list.placeholder(C::Tag), call.tag)
        .bind(list.placeholder(C::RequestJson),
              QString::fromUtf8(QJsonDocument(messages).toJson(QJsonDocument::Compact)))
        .bind(list.placeholder(C::Reply), call.reply)
        .bind(list.placeholder(C::Reasoning), call.reasoning)
        .bind(list.placeholder(C::FinishReason), call.finishReason)
        .bind(list.placeholder(C::PromptTokens), call.usage ? QVariant(call.usage->inputTokens) : QVariant())
        .bind(list.placeholder(C::CompletionTokens),
              call.usage ? QVariant(call.usage->outputTokens) : QVariant())
        .bind(list.placeholder(C::LatencyMs), call.latencyMs)
        .bind(list.placeholder(C::Attempts), call.attempts)
        .bind(list.placeholder(C::CostUsd), Statement::orNull(call.costUsd))
        .bind(list.placeholder(C::Error), call.error)
        .bind(list.placeholder(C::StartedAt),
              call.startedUtc.isValid() ? QVariant(SqlValues::time(call.startedUtc)) : QVariant());
}
