#pragma once

#include "llm/llmcallrecorder.h"
#include "model/candidate.h"
#include "model/evaluation.h"
#include "store/database.h"
#include "store/planrecord.h"
#include "store/resumestep.h"
#include "store/sessionrecord.h"
#include "store/sessionstatistics.h"
#include "store/sessionsummary.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QStringList>

#include <optional>

// The workspace database: sessions and everything they produced (docs/architecture.md, "Stores and files").
//
// Writes are idempotent: plan and candidate ids are derived from their natural keys (session, iteration,
// parent, plan index, sample index, fix round), and every add is INSERT OR IGNORE, so a resumed session that
// replays a step re-adds nothing and duplicates nothing. Multi-row changes run in one transaction; callers
// that need several calls to land together wrap them in transaction().
//
// Each table's columns are listed once (SessionTable, PlanTable, CandidateTable, EvaluationTable,
// LlmCallTable): the SQL here is built from those lists and rows are read through them, never by position.
// The cost and statistics queries live in SessionStatistics (statistics()).
//
// Failures return false / nullopt / empty and leave the reason in lastError() (and the log). A read can fail
// too (a locked or damaged file), and says why the same way, so the readers are not const: a store that
// reports errors has state, and it is not hidden behind `mutable`.
class SessionStore : public LlmCallRecorder
{
public:
    // Default location: ACCELOPT_WORKSPACE_DB, else <AppDataLocation>/workspace.sqlite.
    static QString defaultPath();

    explicit SessionStore(const QString &path = defaultPath());
    ~SessionStore() override;

    bool open();
    QString path() const { return m_path; }
    QString lastError() const { return m_error; }
    Database &database() { return m_db; }
    const Database &database() const { return m_db; }
    // The cost and statistics queries over this store's file.
    SessionStatistics statistics() const { return SessionStatistics(m_db); }

    // Deterministic ids (name-based UUIDs) from a row's natural key.
    static QString planId(const QString &sessionId, int iteration, const QString &parentCandidateId,
                          int planIndex);
    static QString candidateId(const QString &sessionId, int iteration, const QString &parentId,
                               int planIndex, int sampleIndex, int fixRound);
    static QString baselineCandidateId(const QString &sessionId)
    {
        return candidateId(sessionId, 0, {}, -1, -1, 0);
    }

    bool transaction(const std::function<bool()> &work);

    // Sessions. createSession fills id (new UUID) and times when empty; re-creating an existing id is a
    // no-op.
    bool createSession(SessionRecord &session);
    // `stopReason` says why a session ended (StopRules::name); a running one has none.
    bool setStatus(const QString &sessionId, SessionRecord::Status status, const QString &stopReason = {});
    bool setConfig(const QString &sessionId, const QJsonObject &config);
    std::optional<SessionRecord> session(const QString &sessionId);
    QList<SessionRecord> sessions();          // newest first
    QList<SessionSummary> sessionSummaries(); // newest first, `live` left false
    // Removes the session and everything it produced (plans, candidates, evaluations, beams, LLM calls),
    // in one transaction. The optimization memory keeps its experiences; they name the session by id.
    bool deleteSession(const QString &sessionId);
    // The one session whose id starts with `prefix` (as `git` accepts abbreviated hashes); nullopt if none or
    // ambiguous, with the reason in lastError().
    std::optional<SessionRecord> findSession(const QString &prefix);

    // Resume points: a step of an iteration is marked done in the same transaction as its results, so after a
    // crash the search redoes exactly the unfinished steps.
    bool markStepCompleted(const QString &sessionId, int iteration, ResumeStep step);
    bool isStepCompleted(const QString &sessionId, int iteration, ResumeStep step);

    // Plans and candidates. The add functions fill in missing ids (and the source hash) and write through
    // INSERT OR IGNORE. The list forms are one transaction: all rows or none.
    bool addPlan(PlanRecord &plan);
    bool addPlans(QList<PlanRecord> &plans);
    QList<PlanRecord> plans(const QString &sessionId, int iteration = -1);
    bool addCandidate(Candidate &candidate);
    bool addCandidates(QList<Candidate> &candidates);
    std::optional<Candidate> candidate(const QString &candidateId);
    // The one candidate of the workspace whose id starts with `prefix` (4 characters at least); nullopt when
    // none or several, with the reason in lastError().
    std::optional<Candidate> findCandidate(const QString &prefix);
    QList<Candidate> candidates(const QString &sessionId, int iteration = -1);
    // From the baseline down to `candidateId`, following parent links.
    QList<Candidate> lineage(const QString &candidateId);
    QList<Candidate> children(const QString &candidateId);
    // A kernel with this normalized source already in the session (the selection's distinctness rule).
    bool hasSource(const QString &sessionId, const QString &sourceHash);

    // Evaluations: one per candidate and run index (a re-measurement is run 1, 2, ...).
    bool addEvaluation(const QString &candidateId, const Evaluation &evaluation, int runIndex = 0);
    // The search's cascade: a candidate's numeric check replaces the timing-only evaluation stored for it.
    bool replaceEvaluation(const QString &candidateId, const Evaluation &evaluation, int runIndex = 0);
    std::optional<Evaluation> evaluation(const QString &candidateId, int runIndex = 0);
    // The run index of a best kernel's re-measurement on fresh seeds (and the small size) before it is
    // reported.
    static constexpr int remeasureRun = 1;
    // The run index of a kernel's nkisim evaluation once the two-stage evaluation (SearchConfig::confirmOn)
    // measured it on the device: the device's evaluation becomes run 0, which every reader ranks by, and
    // nkisim's is kept here (for the search's next confirmation and for calibration).
    static constexpr int simulatedRun = 2;
    // The session's re-measurements, by candidate id.
    QHash<QString, Evaluation> remeasurements(const QString &sessionId) { return runs(sessionId, remeasureRun); }
    // The session's evaluations of one run index, by candidate id.
    QHash<QString, Evaluation> runs(const QString &sessionId, int runIndex);
    // The fastest correct candidate of the session (status ok, correct, lowest mean latency) that was not
    // demoted: neither it nor a kernel of the same source failed its re-measurement
    // (Selection::failsRemeasure).
    std::optional<Candidate> bestCandidate(const QString &sessionId);

    // The beam kept after an iteration's selection, in rank order. Setting it again replaces it.
    bool setBeam(const QString &sessionId, int iteration, const QStringList &candidateIds);
    QStringList beam(const QString &sessionId, int iteration);

    // LLM calls. record() files the call under the active session (LlmCallRecorder, for ChatClient); calls
    // made with no active session are kept with no session.
    void setActiveSession(const QString &sessionId) { m_activeSession = sessionId; }
    void record(const LlmCallRecord &call) override;
    bool recordLlmCall(const QString &sessionId, const LlmCallRecord &call);

    // The last answered call of `role` filed under `tag` in the session: what a resumed step replays instead
    // of asking the model again, so a resume neither pays twice nor gets a different answer. Calls that
    // failed or were cancelled are left out: a resume asks them again (a fixed key, a server back up).
    std::optional<LlmCallRecord> recordedCall(const QString &sessionId, const QString &role,
                                              const QString &tag);

private:
    bool fail(const QString &error);
    bool failToOpen(const QString &error);
    bool writeEvaluation(const QString &verb, const QString &candidateId, const Evaluation &evaluation,
                         int runIndex);
    bool insertPlan(PlanRecord &plan, QString &error);
    bool insertCandidate(Candidate &candidate, QString &error);
    bool touchSession(const QString &sessionId, QString &error);
    // One transaction for a batch of rows of one session: all land, or none.
    template<typename Record>
    bool insertAll(QList<Record> &records, bool (SessionStore::*insert)(Record &, QString &))
    {
        QString error;
        const bool ok = m_db.transact(
            [&](QString &e) {
                for (Record &r : records)
                    if (!(this->*insert)(r, e))
                        return false;
                return records.isEmpty() || touchSession(records.first().sessionId, e);
            },
            error);
        return ok || fail(error);
    }

    QString m_path;
    Database m_db;
    QString m_activeSession;
    QString m_error; // the last failure's reason, set by the call that failed
};
