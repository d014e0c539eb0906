#include "store/sessionstore.h"

#include "common/datapaths.h"
#include "common/logcategories.h"
#include "model/kernelnormalizer.h"
#include "store/candidatetable.h"
#include "store/evaluationtable.h"
#include "store/llmcalltable.h"
#include "store/plantable.h"
#include "store/sessiontable.h"
#include "store/sqlvalues.h"
#include "store/statement.h"
#include "store/workspaceschema.h"

#include <QUuid>

namespace {
using SqlValues::now;

// The extra columns of sessionSummaries(), after the session's own. "Correct" is status ok and correct = 1,
// as everywhere; the best is the lowest mean latency (Selection::isBetterBest orders ties, which does not
// change the value). %1 stands for that usable condition, %2 for EvaluationTable::rankable().
enum class SummaryColumn
{
    Candidates,
    BaselineLatency,
    Best,
    Cost,
    Calls,
    UnpricedCalls,
    IterationsDone,
    Count
};
constexpr ColumnList<SummaryColumn, std::size_t(SummaryColumn::Count)> summaryColumns(
    {{{SummaryColumn::Candidates, "(SELECT count(*) FROM candidates c WHERE c.session_id = s.id)"},
      {SummaryColumn::BaselineLatency, "(SELECT e.latency_mean_ms FROM candidates c JOIN evaluations e ON "
                                       "e.candidate_id = c.id AND e.run_index "
                                       "= 0 WHERE c.session_id = s.id AND c.iteration = 0 AND c.origin = 'baseline' AND %1)"},
      {SummaryColumn::Best,
       "(SELECT e.latency_mean_ms || ' ' || coalesce(e.percent_of_peak, '') FROM candidates c JOIN "
       "evaluations e "
       "ON e.candidate_id = c.id AND e.run_index = 0 WHERE c.session_id = s.id AND %1 AND %2 ORDER BY "
       "e.latency_mean_ms, c.iteration, c.id LIMIT 1)"},
      {SummaryColumn::Cost, "(SELECT total(cost_usd) FROM llm_calls l WHERE l.session_id = s.id)"},
      {SummaryColumn::Calls, "(SELECT count(*) FROM llm_calls l WHERE l.session_id = s.id)"},
      {SummaryColumn::UnpricedCalls,
       "(SELECT count(*) FROM llm_calls l WHERE l.session_id = s.id AND l.cost_usd IS NULL)"},
      {SummaryColumn::IterationsDone,
       "(SELECT coalesce(max(b.iteration), 0) FROM beams b WHERE b.session_id = s.id)"}}});
static_assert(summaryColumns.inOrder());

// Name-based UUIDs in a namespace of our own: the same natural key gives the same id in every run.
QString derivedId(const QStringList &parts)
{
    static const QUuid ns(QStringLiteral("6f1d0c3e-2b7a-4c55-9f43-0d1c7a5e9b21"));
    return QUuid::createUuidV5(ns, parts.join(QChar(0x1f))).toString(QUuid::WithoutBraces);
}
} // namespace

QString SessionStore::defaultPath()
{
    const QString fromEnv = qEnvironmentVariable("ACCELOPT_WORKSPACE_DB");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return DataPaths::userDataFile(QStringLiteral("workspace.sqlite"));
}

SessionStore::SessionStore(const QString &path) : m_path(path), m_db(WorkspaceSchema::schema()) {}

SessionStore::~SessionStore() = default;

bool SessionStore::open()
{
    QString error;
    if (m_db.open(m_path, error))
        return true;
    return failToOpen(error);
}

bool SessionStore::fail(const QString &error)
{
    m_error = m_db.explain(error);
    // A read-only file is the user's condition, told by the caller: not a fault to warn of.
    if (m_error != error)
        qCInfo(lcStore).noquote() << m_error;
    else
        qCWarning(lcStore).noquote() << m_error;
    return false;
}

bool SessionStore::failToOpen(const QString &error)
{
    // Only the log's: the caller says it (the CLI on stderr, the window in its own words); a warning here
    // printed every refused database twice.
    m_error = error;
    qCInfo(lcStore).noquote() << error;
    return false;
}

QString SessionStore::planId(const QString &sessionId, int iteration, const QString &parentCandidateId,
                             int planIndex)
{
    return derivedId({QStringLiteral("plan"), sessionId, QString::number(iteration), parentCandidateId,
                      QString::number(planIndex)});
}

QString SessionStore::candidateId(const QString &sessionId, int iteration, const QString &parentId,
                                  int planIndex, int sampleIndex, int fixRound)
{
    return derivedId({QStringLiteral("candidate"), sessionId, QString::number(iteration), parentId,
                      QString::number(planIndex), QString::number(sampleIndex), QString::number(fixRound)});
}

bool SessionStore::transaction(const std::function<bool()> &work)
{
    m_error.clear(); // so a failure reports its own cause, not an earlier one
    QString error;
    const bool ok = m_db.transact(
        [&](QString &workError) {
            if (work())
                return true;
            workError =
                m_error.isEmpty() ? QStringLiteral("the work inside the transaction failed") : m_error;
            return false;
        },
        error);
    return ok || fail(error);
}

bool SessionStore::touchSession(const QString &sessionId, QString &error)
{
    Statement q(m_db.connection(), QStringLiteral("UPDATE sessions SET updated_at = :now WHERE id = :id"));
    q.bind(QStringLiteral(":now"), now()).bind(QStringLiteral(":id"), sessionId);
    if (q.exec())
        return true;
    error = q.error();
    return false;
}

bool SessionStore::createSession(SessionRecord &session)
{
    if (session.id.isEmpty())
        session.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (!session.created.isValid())
        session.created = QDateTime::currentDateTimeUtc();
    if (!session.updated.isValid())
        session.updated = session.created;
    Statement q(m_db.connection(),
                QStringLiteral("INSERT OR IGNORE INTO sessions (%1) VALUES (%2)")
                    .arg(SessionTable::columns().select(), SessionTable::columns().placeholders()));
    SessionTable::bind(q, session);
    return q.exec() || fail(q.error());
}

bool SessionStore::setStatus(const QString &sessionId, SessionRecord::Status status,
                             const QString &stopReason)
{
    Statement q(m_db.connection(),
                QStringLiteral("UPDATE sessions SET status = :status, stop_reason = :reason, "
                               "updated_at = :now WHERE id = :id"));
    q.bind(QStringLiteral(":status"), SessionRecord::statusName(status))
        .bind(QStringLiteral(":reason"), stopReason)
        .bind(QStringLiteral(":now"), now())
        .bind(QStringLiteral(":id"), sessionId);
    if (!q.exec())
        return fail(q.error());
    return q.rowsAffected() > 0 || fail(QStringLiteral("no session %1 in %2").arg(sessionId, m_path));
}

bool SessionStore::setConfig(const QString &sessionId, const QJsonObject &config)
{
    Statement q(
        m_db.connection(),
        QStringLiteral("UPDATE sessions SET config_json = :config, updated_at = :now WHERE id = :id"));
    q.bind(QStringLiteral(":config"), SqlValues::json(config))
        .bind(QStringLiteral(":now"), now())
        .bind(QStringLiteral(":id"), sessionId);
    if (!q.exec())
        return fail(q.error());
    return q.rowsAffected() > 0 || fail(QStringLiteral("no session %1 in %2").arg(sessionId, m_path));
}

std::optional<SessionRecord> SessionStore::session(const QString &sessionId)
{
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM sessions WHERE id = :id").arg(SessionTable::columns().select()));
    q.bind(QStringLiteral(":id"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return SessionTable::read(q);
}

QList<SessionRecord> SessionStore::sessions()
{
    QList<SessionRecord> result;
    Statement q(m_db.connection(), QStringLiteral("SELECT %1 FROM sessions ORDER BY created_at DESC, id")
                                       .arg(SessionTable::columns().select()));
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(SessionTable::read(q));
    return result;
}

QList<SessionSummary> SessionStore::sessionSummaries()
{
    QList<SessionSummary> result;
    static const QString usable =
        QStringLiteral("e.status = 'ok' AND e.correct = 1 AND e.latency_mean_ms > 0");
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1, %2 FROM sessions s ORDER BY created_at DESC, id")
                    .arg(SessionTable::columns().select(),
                         summaryColumns.select().arg(usable, EvaluationTable::rankable())));
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    using C = SummaryColumn;
    while (q.next()) {
        const ColumnRow<C> row(q, SessionTable::columns().size());
        SessionSummary s;
        s.session = SessionTable::read(q);
        s.iterations = s.session.config.value(QStringLiteral("iterations")).toInt();
        s.candidates = row.integer(C::Candidates);
        s.baselineLatencyMs = row.number(C::BaselineLatency);
        if (!row.isNull(C::Best)) {
            const QStringList best = row.text(C::Best).split(u' ');
            s.bestLatencyMs = best.value(0).toDouble();
            bool known = false;
            const double percent = best.value(1).toDouble(&known);
            if (known)
                s.bestPercentOfPeak = percent;
        }
        s.costUsd = row.real(C::Cost);
        s.calls = row.integer(C::Calls);
        s.unpricedCalls = row.integer(C::UnpricedCalls);
        s.iterationsDone = row.integer(C::IterationsDone);
        result.append(s);
    }
    return result;
}

bool SessionStore::deleteSession(const QString &sessionId)
{
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            // Plans and candidates refer to each other; clear those links first so the cascade from the
            // session can remove both tables' rows in any order.
            Statement unlinkPlans(m_db.connection(), QStringLiteral("UPDATE plans SET parent_candidate_id = "
                                                                    "NULL WHERE session_id = :s"));
            Statement unlinkCandidates(
                m_db.connection(), QStringLiteral("UPDATE candidates SET parent_id = NULL, plan_id = NULL "
                                                  "WHERE session_id = :s"));
            Statement beams(m_db.connection(), QStringLiteral("DELETE FROM beams WHERE session_id = :s"));
            Statement remove(m_db.connection(), QStringLiteral("DELETE FROM sessions WHERE id = :s"));
            for (Statement *st : {&unlinkPlans, &unlinkCandidates, &beams, &remove}) {
                st->bind(QStringLiteral(":s"), sessionId);
                if (!st->exec()) {
                    e = st->error();
                    return false;
                }
            }
            if (remove.rowsAffected() != 1) {
                e = QStringLiteral("no session '%1' in %2").arg(sessionId, m_path);
                return false;
            }
            return true;
        },
        error);
    return ok || fail(error);
}

std::optional<SessionRecord> SessionStore::findSession(const QString &prefix)
{
    if (auto exact = session(prefix))
        return exact;
    QList<SessionRecord> matches;
    for (const SessionRecord &s : sessions())
        if (!prefix.isEmpty() && s.id.startsWith(prefix, Qt::CaseInsensitive))
            matches.append(s);
    if (matches.size() == 1)
        return matches.first();
    m_error =
        matches.isEmpty()
            ? QStringLiteral("no session '%1' in %2").arg(prefix, m_path)
            : QStringLiteral("'%1' matches %2 sessions; give more of the id").arg(prefix).arg(matches.size());
    return std::nullopt;
}

bool SessionStore::markStepCompleted(const QString &sessionId, int iteration, ResumeStep resumeStep)
{
    const QString step = ResumeSteps::name(resumeStep);
    return transaction([&] {
        Statement mark(
            m_db.connection(),
            QStringLiteral(
                "INSERT OR IGNORE INTO completed_steps (session_id, iteration, step, completed_at) "
                "VALUES (:s, :i, :step, :now)"));
        mark.bind(QStringLiteral(":s"), sessionId)
            .bind(QStringLiteral(":i"), iteration)
            .bind(QStringLiteral(":step"), step)
            .bind(QStringLiteral(":now"), now());
        if (!mark.exec())
            return fail(mark.error());
        Statement where(m_db.connection(),
                        QStringLiteral("UPDATE sessions SET current_iteration = :i, current_step = :step, "
                                       "updated_at = :now WHERE id = :s AND current_iteration <= :i"));
        where.bind(QStringLiteral(":s"), sessionId)
            .bind(QStringLiteral(":i"), iteration)
            .bind(QStringLiteral(":step"), step)
            .bind(QStringLiteral(":now"), now());
        return where.exec() || fail(where.error());
    });
}

bool SessionStore::isStepCompleted(const QString &sessionId, int iteration, ResumeStep step)
{
    Statement q(m_db.connection(), QStringLiteral("SELECT 1 FROM completed_steps WHERE session_id = :s AND "
                                                  "iteration = :i AND step = :step"));
    q.bind(QStringLiteral(":s"), sessionId)
        .bind(QStringLiteral(":i"), iteration)
        .bind(QStringLiteral(":step"), ResumeSteps::name(step));
    if (!q.exec())
        return fail(q.error());
    return q.next();
}

bool SessionStore::insertPlan(PlanRecord &plan, QString &error)
{
    if (plan.id.isEmpty())
        plan.id = planId(plan.sessionId, plan.iteration, plan.parentCandidateId, plan.planIndex);
    Statement q(m_db.connection(),
                QStringLiteral("INSERT OR IGNORE INTO plans (%1, created_at) VALUES (%2, :now)")
                    .arg(PlanTable::columns().select(), PlanTable::columns().placeholders()));
    PlanTable::bind(q, plan);
    q.bind(QStringLiteral(":now"), now());
    if (q.exec())
        return true;
    error = q.error();
    return false;
}

bool SessionStore::addPlan(PlanRecord &plan)
{
    QList<PlanRecord> one{plan};
    const bool ok = addPlans(one);
    plan = one.first();
    return ok;
}

bool SessionStore::addPlans(QList<PlanRecord> &plans)
{
    return insertAll(plans, &SessionStore::insertPlan);
}

QList<PlanRecord> SessionStore::plans(const QString &sessionId, int iteration)
{
    QList<PlanRecord> result;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM plans WHERE session_id = :s AND (:i < 0 OR iteration = :i) "
                               "ORDER BY iteration, parent_candidate_id, plan_index")
                    .arg(PlanTable::columns().select()));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":i"), iteration);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(PlanTable::read(q));
    return result;
}

bool SessionStore::insertCandidate(Candidate &c, QString &error)
{
    if (c.id.isEmpty())
        c.id = c.origin == Candidate::Origin::Baseline ? baselineCandidateId(c.sessionId)
                                                       : candidateId(c.sessionId, c.iteration, c.parentId,
                                                                     c.planIndex, c.sampleIndex, c.fixRound);
    if (c.sourceHash.isEmpty())
        c.sourceHash = KernelNormalizer::hash(c.source);
    Statement q(m_db.connection(),
                QStringLiteral("INSERT OR IGNORE INTO candidates (%1, created_at) VALUES (%2, :now)")
                    .arg(CandidateTable::columns().select(), CandidateTable::columns().placeholders()));
    CandidateTable::bind(q, c);
    q.bind(QStringLiteral(":now"), now());
    if (q.exec())
        return true;
    error = q.error();
    return false;
}

bool SessionStore::addCandidate(Candidate &candidate)
{
    QList<Candidate> one{candidate};
    const bool ok = addCandidates(one);
    candidate = one.first();
    return ok;
}

bool SessionStore::addCandidates(QList<Candidate> &candidates)
{
    return insertAll(candidates, &SessionStore::insertCandidate);
}

std::optional<Candidate> SessionStore::candidate(const QString &candidateId)
{
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM candidates c WHERE c.id = :id").arg(CandidateTable::select()));
    q.bind(QStringLiteral(":id"), candidateId);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return CandidateTable::read(q);
}

std::optional<Candidate> SessionStore::findCandidate(const QString &prefix)
{
    if (prefix.size() < 4 || prefix.contains(u'%') || prefix.contains(u'_')) {
        m_error =
            QStringLiteral("'%1' is not a candidate id: give at least its first 4 characters").arg(prefix);
        return std::nullopt;
    }
    Statement q(m_db.connection(), QStringLiteral("SELECT %1 FROM candidates c WHERE c.id LIKE :p LIMIT 2")
                                       .arg(CandidateTable::select()));
    q.bind(QStringLiteral(":p"), prefix.toLower() + u'%');
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    QList<Candidate> found;
    while (q.next())
        found.append(CandidateTable::read(q));
    if (found.size() == 1)
        return found.first();
    m_error = found.isEmpty()
                  ? QStringLiteral("no candidate '%1' in %2").arg(prefix, m_path)
                  : QStringLiteral("'%1' matches more than one candidate; give more of the id").arg(prefix);
    return std::nullopt;
}

QList<Candidate> SessionStore::candidates(const QString &sessionId, int iteration)
{
    QList<Candidate> result;
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM candidates c WHERE c.session_id = :s AND (:i < 0 OR c.iteration = :i) "
                       "ORDER BY c.iteration, c.created_at, c.plan_index, c.sample_index, c.fix_round")
            .arg(CandidateTable::select()));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":i"), iteration);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(CandidateTable::read(q));
    return result;
}

QList<Candidate> SessionStore::lineage(const QString &candidateId)
{
    QList<Candidate> result;
    // The depth bound guards against a parent cycle, which the schema cannot rule out by itself.
    Statement q(
        m_db.connection(),
        QStringLiteral("WITH RECURSIVE chain(id, depth) AS (SELECT :id, 0 UNION ALL SELECT c.parent_id, "
                       "chain.depth + 1 FROM candidates c JOIN chain ON c.id = chain.id WHERE c.parent_id IS "
                       "NOT NULL AND chain.depth < 100000) SELECT %1 FROM chain JOIN candidates c ON c.id = "
                       "chain.id ORDER BY chain.depth DESC")
            .arg(CandidateTable::select()));
    q.bind(QStringLiteral(":id"), candidateId);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(CandidateTable::read(q));
    return result;
}

QList<Candidate> SessionStore::children(const QString &candidateId)
{
    QList<Candidate> result;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM candidates c WHERE c.parent_id = :id ORDER BY "
                               "c.plan_index, c.sample_index, c.fix_round")
                    .arg(CandidateTable::select()));
    q.bind(QStringLiteral(":id"), candidateId);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(CandidateTable::read(q));
    return result;
}

bool SessionStore::hasSource(const QString &sessionId, const QString &sourceHash)
{
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT 1 FROM candidates WHERE session_id = :s AND source_hash = :h LIMIT 1"));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":h"), sourceHash);
    if (!q.exec())
        return fail(q.error());
    return q.next();
}

bool SessionStore::addEvaluation(const QString &candidateId, const Evaluation &e, int runIndex)
{
    return writeEvaluation(QStringLiteral("INSERT OR IGNORE"), candidateId, e, runIndex);
}

bool SessionStore::replaceEvaluation(const QString &candidateId, const Evaluation &e, int runIndex)
{
    return writeEvaluation(QStringLiteral("INSERT OR REPLACE"), candidateId, e, runIndex);
}

bool SessionStore::writeEvaluation(const QString &verb, const QString &candidateId, const Evaluation &e,
                                   int runIndex)
{
    Statement q(
        m_db.connection(),
        QStringLiteral("%1 INTO evaluations (candidate_id, run_index, %2, created_at) VALUES (:c, :run, "
                       "%3, :now)")
            .arg(verb, EvaluationTable::columns().select(), EvaluationTable::columns().placeholders()));
    EvaluationTable::bind(q, e);
    q.bind(QStringLiteral(":c"), candidateId)
        .bind(QStringLiteral(":run"), runIndex)
        .bind(QStringLiteral(":now"), now());
    return q.exec() || fail(q.error());
}

std::optional<Evaluation> SessionStore::evaluation(const QString &candidateId, int runIndex)
{
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM evaluations WHERE candidate_id = :c AND run_index = :run")
                    .arg(EvaluationTable::columns().select()));
    q.bind(QStringLiteral(":c"), candidateId).bind(QStringLiteral(":run"), runIndex);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return EvaluationTable::read(q, candidateId);
}

QHash<QString, Evaluation> SessionStore::runs(const QString &sessionId, int runIndex)
{
    QHash<QString, Evaluation> result;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1, c.id FROM evaluations JOIN candidates c ON c.id = candidate_id "
                               "WHERE c.session_id = :s AND run_index = :run")
                    .arg(EvaluationTable::columns().select()));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":run"), runIndex);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    const int idColumn = EvaluationTable::columns().size(); // c.id, after the evaluation's own columns
    while (q.next()) {
        const QString id = q.value(idColumn).toString();
        result.insert(id, EvaluationTable::read(q, id));
    }
    return result;
}

std::optional<Candidate> SessionStore::bestCandidate(const QString &sessionId)
{
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM candidates c JOIN evaluations e ON e.candidate_id = c.id AND "
                       "e.run_index = 0 WHERE c.session_id = :s AND e.status = 'ok' AND e.correct = 1 AND "
                       "e.latency_mean_ms IS NOT NULL AND %2 ORDER BY e.latency_mean_ms, c.iteration, c.id "
                       "LIMIT 1")
            .arg(CandidateTable::select(), EvaluationTable::rankable()));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return CandidateTable::read(q);
}

bool SessionStore::setBeam(const QString &sessionId, int iteration, const QStringList &candidateIds)
{
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            Statement clear(m_db.connection(),
                            QStringLiteral("DELETE FROM beams WHERE session_id = :s AND iteration = :i"));
            clear.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":i"), iteration);
            if (!clear.exec()) {
                e = clear.error();
                return false;
            }
            for (qsizetype pos = 0; pos < candidateIds.size(); ++pos) {
                Statement add(m_db.connection(),
                              QStringLiteral("INSERT INTO beams (session_id, iteration, position, "
                                             "candidate_id) VALUES (:s, :i, :p, :c)"));
                add.bind(QStringLiteral(":s"), sessionId)
                    .bind(QStringLiteral(":i"), iteration)
                    .bind(QStringLiteral(":p"), static_cast<int>(pos))
                    .bind(QStringLiteral(":c"), candidateIds.at(pos));
                if (!add.exec()) {
                    e = add.error();
                    return false;
                }
            }
            return touchSession(sessionId, e);
        },
        error);
    return ok || fail(error);
}

QStringList SessionStore::beam(const QString &sessionId, int iteration)
{
    QStringList ids;
    Statement q(m_db.connection(), QStringLiteral("SELECT candidate_id FROM beams WHERE session_id = :s AND "
                                                  "iteration = :i ORDER BY position"));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":i"), iteration);
    if (!q.exec()) {
        fail(q.error());
        return ids;
    }
    while (q.next())
        ids.append(q.value(0).toString());
    return ids;
}

void SessionStore::record(const LlmCallRecord &call)
{
    recordLlmCall(m_activeSession, call);
}

bool SessionStore::recordLlmCall(const QString &sessionId, const LlmCallRecord &call)
{
    Statement q(m_db.connection(),
                QStringLiteral("INSERT INTO llm_calls (%1, created_at) VALUES (%2, :now)")
                    .arg(LlmCallTable::columns().select(), LlmCallTable::columns().placeholders()));
    LlmCallTable::bind(q, sessionId, call);
    q.bind(QStringLiteral(":now"), now());
    return q.exec() || fail(q.error());
}

std::optional<LlmCallRecord> SessionStore::recordedCall(const QString &sessionId, const QString &role,
                                                        const QString &tag)
{
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM llm_calls WHERE session_id = :s AND role = :role AND tag = :tag AND "
                       "error = '' ORDER BY id DESC LIMIT 1")
            .arg(LlmCallTable::columns().select()));
    q.bind(QStringLiteral(":s"), sessionId)
        .bind(QStringLiteral(":role"), role)
        .bind(QStringLiteral(":tag"), tag);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return LlmCallTable::read(q);
}
