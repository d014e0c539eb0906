#include "search/spendledger.h"

void SpendLedger::clear()
{
    *this = SpendLedger();
}

void SpendLedger::restore(double costUsd, qint64 tokens, const QMap<QString, double> &costByRole)
{
    m_costUsd = costUsd;
    m_tokens = tokens;
    m_costByRole = costByRole;
}

void SpendLedger::book(AgentRole role, const ChatReply &reply)
{
    if (reply.usage)
        m_tokens += reply.usage->inputTokens + reply.usage->outputTokens;
    if (reply.costUsd) {
        m_costUsd += *reply.costUsd;
        m_costByRole[AgentRoles::name(role)] += *reply.costUsd;
    }
}

SearchProgress SpendLedger::progress(double wallSeconds) const
{
    SearchProgress p;
    p.costUsd = m_costUsd;
    p.tokens = m_tokens;
    p.wallSeconds = wallSeconds;
    return p;
}

void SpendLedger::startStep()
{
    m_callsOk = m_callsFailed = 0;
    m_firstCallError.clear();
}

void SpendLedger::countCall(const ChatReply &reply)
{
    ++(reply.ok() ? m_callsOk : m_callsFailed);
    if (!reply.ok() && m_firstCallError.isEmpty())
        m_firstCallError = reply.errorText;
}
