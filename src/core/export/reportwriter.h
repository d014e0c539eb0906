#pragma once

#include "model/candidate.h"
#include "model/evaluation.h"
#include "store/sessionrecord.h"
#include "store/sessionstore.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QList>
#include <QMap>
#include <QStringList>

#include <optional>

// A session's record for people and for other tools (every export has a CLI path:
// `accelopt report`): every candidate as CSV (a spreadsheet or pandas), the session as JSON (scripts; kernel
// sources included, LLM transcripts not, since they are large and may quote proprietary prompts), and a
// Markdown report that reads on its own (what was searched, how it went, what it cost, the best kernel and
// how it was reached).
//
// load() reads everything once; the three renderings are then pure functions of that snapshot, so the
// files written together describe the same moment even while a search is still running.
class ReportWriter
{
public:
    explicit ReportWriter(SessionStore &store);

    // `sessionId` may be a unique prefix. `generatedAt` defaults to now; tests pin it.
    bool load(const QString &sessionId, const QDateTime &generatedAt = {});
    QString lastError() const { return m_error; }
    const SessionRecord &session() const { return m_session; }

    QByteArray csv() const;
    QByteArray json() const;
    QByteArray markdown() const;

    // The file names that go next to an exported kernel "<stem>.py".
    static QString csvFileName(const QString &stem);
    static QString jsonFileName(const QString &stem);
    static QString markdownFileName(const QString &stem);

    // RFC 4180 quoting: a field with a comma, a quote or a line break is quoted, its quotes doubled.
    static QString csvField(const QString &value);

private:
    struct Row
    {
        Candidate candidate;
        std::optional<Evaluation> evaluation; // the first run (run index 0)
        QString planTitle;
        QStringList planSteps;
        std::optional<double> speedup; // over the baseline, for correct candidates

        bool correct() const { return evaluation && evaluation->ok() && evaluation->isCorrect(); }
    };

    const Row *row(const QString &candidateId) const;
    QJsonArray demotedJson() const;

    SessionStore &m_store;
    QString m_error;
    QDateTime m_generatedAt;
    SessionRecord m_session;
    QList<Row> m_rows;
    std::optional<double> m_baselineLatencyMs;
    QString m_bestId;
    QList<Candidate> m_bestLineage;
    QMap<QString, Evaluation> m_demoted; // candidates that failed their re-measurement: never the best
    SessionStatistics::CostTotals m_cost;
    QList<SessionStatistics::IterationSummary> m_iterations;
    QMap<QString, int> m_countsByStatus;
};
