#pragma once

#include "model/candidate.h"
#include "model/evaluation.h"
#include "search/searchconfig.h"
#include "search/searchevent.h"
#include "store/planrecord.h"
#include "store/sessionsnapshot.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QSet>

#include <optional>

// One session as the live views see it: every candidate with its plan and evaluation, the beam, and the
// figures the Search dock's header shows. Fed from a snapshot (an opened session) and then from the search's
// events; both may tell the same candidate twice (a resume replays what had landed), which updates it in
// place. The item models (CandidateTableModel, CandidateTreeModel, IterationModel) are views over it and
// follow its change signals; it lives on the GUI thread and never touches a database.
class SearchState : public QObject
{
    Q_OBJECT
public:
    struct Row
    {
        Candidate candidate;
        std::optional<Evaluation> evaluation;
        bool evaluating = false;
        QString planTitle;
        int beamRank = -1;                    // position in the latest beam, -1 when not in it
        std::optional<Evaluation> remeasured; // run again before it was reported as the best (BestRemeasured)
        bool demoted = false; // it, or a kernel of the same source, failed that run: never the best
        // Measured by nkisim only, in a session that confirms on hardware (SearchConfig::confirmOn): never
        // in the beam, an experience or the best.
        bool simulatedOnly = false;
    };
    struct Summary
    {
        QString task;
        QJsonObject taskRef; // EvalRequest::task of the session
        QString target;
        QString backend;
        QString host;
        QString size;
        SearchConfig config;
        bool running = false;
        bool resumed = false;
        StopReason stopReason = StopReason::None;
        QString error;
        int iteration = 0; // the one running (or last run); 0: the baseline
        int iterationsDone = 0;
        int usable = 0;    // candidates correct with a latency
        int failed = 0;    // evaluated and not usable
        int unchecked = 0; // only timed: the cascade did not check them (Selection::isUnchecked)
        int reused = 0;    // evaluations taken over from a twin
        int evaluating = 0;
        int llmCallsInFlight = 0;
        std::optional<double> baselineLatencyMs;
        QString bestCandidateId;
        double costUsd = 0;
        qint64 tokens = 0;
        QMap<QString, double> costUsdByRole;    // of the calls whose cost is known
        QMap<QString, int> callsByRole;         // model calls booked, per role
        QMap<QString, int> unpricedCallsByRole; // of those, calls whose cost is unknown (no price, no usage)
        QMap<int, double> costAtIteration;      // cumulative cost at the end of each iteration
        double elapsedSeconds = 0;              // of this run, at the last event
        double iterationsStartSeconds = 0;      // when this run's first iteration began
        int iterationsDoneAtStart = 0;          // iterations finished before this run (a resume)
    };

    explicit SearchState(QObject *parent = nullptr);

    void clear();
    // `running`: the session is being run by this window, and its events continue it.
    void load(const SessionSnapshot &snapshot, bool running = false);
    // Events of another session than the loaded one are ignored; a SessionStarted into an empty state adopts
    // its session.
    void apply(const SearchEvent &event);

    QString sessionId() const { return m_sessionId; }
    const Summary &summary() const { return m_summary; }
    int rowCount() const { return int(m_rows.size()); }
    const Row &row(int index) const { return m_rows.at(index); }
    int rowOf(const QString &candidateId) const { return m_index.value(candidateId, -1); }
    const Row *find(const QString &candidateId) const;
    QStringList beam() const { return m_beam; }
    std::optional<PlanRecord> plan(const QString &planId) const;
    std::optional<Evaluation> best() const;
    std::optional<double> speedupOf(const Row &row) const; // over the baseline, for usable rows
    std::optional<double> speedup() const;                 // of the best
    // Fraction 0-1 of the whole search done: finished iterations plus the running one's evaluations.
    double progress() const;
    // Seconds until the last iteration ends, from this run's pace; empty before an iteration has finished.
    std::optional<double> etaSeconds() const;
    // Candidates and usable ones per iteration (index = iteration).
    struct IterationRow
    {
        int iteration = 0;
        int candidates = 0;
        int usable = 0;
        int failed = 0;
        QString bestCandidateId;
        bool improved = false;
    };
    QList<IterationRow> iterations() const;

Q_SIGNALS:
    void reset();             // everything changed: a load or a clear
    void rowAdded(int row);   // appended at `row`
    void rowChanged(int row); // evaluation, plan title or beam rank
    void summaryChanged();    // the header's figures
    void rankingChanged();    // the baseline's latency or the best kernel: speedups and markers move
    void iterationChanged(int iteration);

private:
    int upsert(const Candidate &candidate);
    void setEvaluation(const QString &candidateId, const Evaluation &evaluation, bool evaluating);
    void setBeam(const QStringList &ids);
    void offerBest(const Row &row);
    bool isSimulatedOnly(const Row &row) const;
    void setRemeasured(const QString &candidateId, const Evaluation &remeasured);
    void tellSummary();

    QString m_sessionId;
    Summary m_summary;
    QList<Row> m_rows;
    QHash<QString, int> m_index;
    QHash<QString, PlanRecord> m_plans;
    QStringList m_beam;
    QSet<QString>
        m_demotedSources;        // sources (or ids) that failed a re-measurement: later twins are demoted too
    QHash<int, bool> m_improved; // iteration -> its selection improved the best
    std::optional<double> m_toldBaseline; // as of the last rankingChanged
    QString m_toldBest;
};
