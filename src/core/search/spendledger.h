#pragma once

#include "llm/agentrole.h"
#include "llm/chatreply.h"
#include "search/stoprules.h"

#include <QMap>
#include <QString>

// What a search has spent on models (money, tokens, by role) and how the current generating step's calls
// went, booked reply by reply. The budgets read it (progress()); it is not the price list (llm/CostLedger
// prices one reply) nor the store's booking of every run (SessionStore::costTotals), from which a resume
// restores it.
class SpendLedger
{
public:
    void clear();
    void restore(double costUsd, qint64 tokens, const QMap<QString, double> &costByRole);

    void book(AgentRole role, const ChatReply &reply); // its tokens and cost, when known
    double costUsd() const { return m_costUsd; }
    qint64 tokens() const { return m_tokens; }
    const QMap<QString, double> &costByRole() const { return m_costByRole; }
    // Money, tokens and the wall time as the stop rules take them (the rest left unset).
    SearchProgress progress(double wallSeconds) const;

    // The generating step's calls: an iteration whose every call failed ends the search (ModelsFailed).
    void startStep();
    void countCall(const ChatReply &reply);
    bool everyCallFailed() const { return m_callsOk == 0 && m_callsFailed > 0; }
    int callsFailed() const { return m_callsFailed; }
    QString firstCallError() const { return m_firstCallError; }

private:
    double m_costUsd = 0;
    qint64 m_tokens = 0;
    QMap<QString, double> m_costByRole;
    int m_callsOk = 0;
    int m_callsFailed = 0;
    QString m_firstCallError;
};
