#pragma once

#include <QList>
#include <QMap>
#include <QString>

#include <optional>

class Database;

// The workspace's cost and statistics queries (what the report, `accelopt sessions show`, the session
// snapshot and a resume's budget read), apart from SessionStore's rows: they only read, aggregate over
// several tables, and never take part in a search's writes. Each query's result columns are one ColumnList in
// the .cpp. Failures return empty results and leave the reason in lastError() (and the log). Cheap to make:
// take one from SessionStore::statistics() where it is needed.
class SessionStatistics
{
public:
    explicit SessionStatistics(const Database &db) : m_db(db) {}

    struct CostTotals
    {
        int calls = 0;
        int failedCalls = 0;
        qint64 promptTokens = 0;
        qint64 completionTokens = 0;
        int callsWithoutTokens = 0; // the server sent no usage: their tokens are unknown, not zero
        double costUsd = 0;
        int callsWithoutCost = 0;         // no price known for the model
        QMap<QString, double> costByRole; // of the calls with a price
        QMap<QString, int> callsByRole;
        QMap<QString, int> callsWithoutCostByRole;
    };
    CostTotals costTotals(const QString &sessionId); // empty id: all sessions
    // The priced model calls' cost per iteration of a session (a call counts for the iteration of the plan or
    // candidate it was made for; iteration 0 holds calls that belong to none).
    QMap<int, double> costByIteration(const QString &sessionId);

    struct IterationSummary
    {
        int iteration = 0;
        int candidates = 0;
        int correct = 0;
        std::optional<double> bestLatencyMs;
        std::optional<double> bestPercentOfPeak; // of the fastest correct candidate
        QString bestCandidateId;
    };
    QList<IterationSummary> iterationSummaries(const QString &sessionId);
    // Candidates by the status of their first evaluation; "pending" for those not evaluated yet.
    QMap<QString, int> candidateCountsByStatus(const QString &sessionId);
    // The two-stage evaluation's summary (SearchConfig::confirmOn, issue 34), from the rows: candidates whose
    // ranking evaluation (run 0) was measured on a device, and those measured by nkisim only (the device
    // evaluations saved). Candidates not evaluated yet are in neither.
    struct DeviceCounts
    {
        int onDevice = 0;
        int simulatedOnly = 0;
    };
    DeviceCounts deviceCounts(const QString &sessionId);

    QString lastError() const { return m_error; }

private:
    void fail(const QString &error);

    const Database &m_db;
    QString m_error;
};
