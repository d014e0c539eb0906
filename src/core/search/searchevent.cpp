#include "search/searchevent.h"

#include <QJsonArray>

namespace {

using namespace SearchEvents;

QJsonValue text(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

QJsonValue integer(const std::optional<qint64> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QJsonObject totalsJson(const Totals &t)
{
    QJsonObject byRole;
    for (auto it = t.costUsdByRole.cbegin(); it != t.costUsdByRole.cend(); ++it)
        byRole.insert(it.key(), it.value());
    QJsonObject o{
        {QStringLiteral("iterations"), t.iterations},
        {QStringLiteral("best_candidate"), text(t.bestCandidateId)},
        {QStringLiteral("best_latency_ms"), Evaluation::json(t.best ? t.best->latencyMeanMs : std::nullopt)},
        {QStringLiteral("percent_of_peak"), Evaluation::json(t.best ? t.best->percentOfPeak : std::nullopt)},
        {QStringLiteral("speedup"), Evaluation::json(t.speedup)},
        {QStringLiteral("cost_usd"), t.costUsd},
        {QStringLiteral("cost_usd_by_role"), byRole},
        {QStringLiteral("tokens"), t.tokens},
        {QStringLiteral("reused_evaluations"), t.reused}};
    if (!t.confirmOn.isEmpty()) {
        o.insert(QStringLiteral("confirm_on"), t.confirmOn);
        o.insert(QStringLiteral("device_evaluations"), t.deviceEvaluations);
        o.insert(QStringLiteral("device_evaluations_saved"), t.simulatedOnly);
    }
    return o;
}

QJsonObject merged(QJsonObject a, const QJsonObject &b)
{
    for (auto it = b.begin(); it != b.end(); ++it)
        a.insert(it.key(), it.value());
    return a;
}

struct Json
{
    QJsonObject operator()(const SessionStarted &e) const
    {
        return {{QStringLiteral("resumed"), e.resumed},      {QStringLiteral("iteration"), e.iteration},
                {QStringLiteral("task"), e.task.name},       {QStringLiteral("target"), e.task.target},
                {QStringLiteral("backend"), e.task.backend}, {QStringLiteral("host"), e.task.host},
                {QStringLiteral("size"), e.task.size},       {QStringLiteral("config"), e.config.toJson()}};
    }
    QJsonObject operator()(const BaselineEvaluated &e) const
    {
        return {{QStringLiteral("candidate"), e.candidateId},
                {QStringLiteral("status"), e.evaluation.statusName()},
                {QStringLiteral("error"), text(e.evaluation.error)},
                {QStringLiteral("correct"), Evaluation::json(e.evaluation.correct)},
                {QStringLiteral("latency_ms"), Evaluation::json(e.evaluation.latencyMeanMs)},
                {QStringLiteral("percent_of_peak"), Evaluation::json(e.evaluation.percentOfPeak)}};
    }
    QJsonObject operator()(const PlanCreated &e) const
    {
        return {{QStringLiteral("iteration"), e.iteration},
                {QStringLiteral("plan"), e.planId},
                {QStringLiteral("parent"), e.parentCandidateId},
                {QStringLiteral("plan_index"), e.planIndex},
                {QStringLiteral("title"), e.plan.title}};
    }
    QJsonObject operator()(const CandidateCreated &e) const
    {
        const Candidate &c = e.candidate;
        return {{QStringLiteral("candidate"), c.id},
                {QStringLiteral("iteration"), c.iteration},
                {QStringLiteral("parent"), text(c.parentId)},
                {QStringLiteral("plan"), text(c.planId)},
                {QStringLiteral("origin"), Candidate::originName(c.origin)},
                {QStringLiteral("fix_round"), c.fixRound},
                {QStringLiteral("source_hash"), c.sourceHash}};
    }
    QJsonObject operator()(const LlmCallStarted &e) const
    {
        return {{QStringLiteral("call"), qint64(e.call)},
                {QStringLiteral("role"), AgentRoles::name(e.role)},
                {QStringLiteral("iteration"), e.iteration},
                {QStringLiteral("tag"), e.tag},
                {QStringLiteral("replayed"), e.replayed}};
    }
    QJsonObject operator()(const LlmCallFinished &e) const
    {
        return {{QStringLiteral("call"), qint64(e.call)},
                {QStringLiteral("role"), AgentRoles::name(e.role)},
                {QStringLiteral("iteration"), e.iteration},
                {QStringLiteral("ok"), e.ok},
                {QStringLiteral("error"), text(e.error)},
                {QStringLiteral("prompt_tokens"), integer(e.promptTokens)},
                {QStringLiteral("completion_tokens"), integer(e.completionTokens)},
                {QStringLiteral("cost_usd"), Evaluation::json(e.costUsd)},
                {QStringLiteral("model"), text(e.model)},
                {QStringLiteral("replayed"), e.replayed}};
    }
    QJsonObject operator()(const EvaluationStarted &e) const
    {
        return {{QStringLiteral("candidate"), e.candidateId}, {QStringLiteral("iteration"), e.iteration}};
    }
    QJsonObject operator()(const EvaluationFinished &e) const
    {
        const Evaluation &v = e.evaluation;
        return {{QStringLiteral("candidate"), e.candidateId},
                {QStringLiteral("iteration"), e.iteration},
                {QStringLiteral("status"), v.statusName()},
                {QStringLiteral("error"), text(v.error)},
                {QStringLiteral("correct"), Evaluation::json(v.correct)},
                {QStringLiteral("latency_ms"), Evaluation::json(v.latencyMeanMs)},
                {QStringLiteral("percent_of_peak"), Evaluation::json(v.percentOfPeak)},
                {QStringLiteral("reused_from"), text(v.reusedFrom)},
                {QStringLiteral("provenance"), text(v.provenance())},
                {QStringLiteral("host"), text(v.host)},
                {QStringLiteral("replayed"), e.replayed}};
    }
    QJsonObject operator()(const FixChainStopped &e) const
    {
        return {
            {QStringLiteral("candidate"), e.candidateId}, {QStringLiteral("iteration"), e.iteration},
            {QStringLiteral("fix_round"), e.fixRound},    {QStringLiteral("repeats"), e.repeatsCandidateId},
            {QStringLiteral("own_chain"), e.ownChain},    {QStringLiteral("reason"), e.reason}};
    }
    QJsonObject operator()(const BeamSelected &e) const
    {
        return {{QStringLiteral("iteration"), e.iteration},
                {QStringLiteral("beam"), QJsonArray::fromStringList(e.candidateIds)},
                {QStringLiteral("improved"), e.improved}};
    }
    QJsonObject operator()(const ExperienceStored &e) const
    {
        return {{QStringLiteral("iteration"), e.iteration},
                {QStringLiteral("title"), e.title},
                {QStringLiteral("slow"), e.slowCandidateId},
                {QStringLiteral("fast"), e.fastCandidateId},
                {QStringLiteral("speedup"), e.speedup}};
    }
    QJsonObject operator()(const BestRemeasured &e) const
    {
        const Evaluation &v = e.evaluation;
        QJsonArray seeds;
        for (int seed : e.seeds)
            seeds.append(seed);
        return {{QStringLiteral("candidate"), e.candidateId},
                {QStringLiteral("size"), e.size},
                {QStringLiteral("seeds"), seeds},
                {QStringLiteral("status"), v.statusName()},
                {QStringLiteral("error"), text(v.error)},
                {QStringLiteral("correct"), Evaluation::json(v.correct)},
                {QStringLiteral("latency_ms"), Evaluation::json(v.latencyMeanMs)},
                {QStringLiteral("demoted"), e.demoted}};
    }
    QJsonObject operator()(const IterationFinished &e) const
    {
        return merged(totalsJson(e.totals), {{QStringLiteral("iteration"), e.iteration},
                                             {QStringLiteral("candidates"), e.candidates},
                                             {QStringLiteral("correct"), e.usable},
                                             {QStringLiteral("not_checked"), e.unchecked}});
    }
    QJsonObject operator()(const Stopped &e) const
    {
        return merged(totalsJson(e.totals), {{QStringLiteral("stop_reason"), StopRules::name(e.reason)},
                                             {QStringLiteral("error"), e.error},
                                             {QStringLiteral("iterations_done"), e.iterationsDone},
                                             {QStringLiteral("candidates"), e.totals.candidates},
                                             {QStringLiteral("llm_calls"), e.llmCalls},
                                             {QStringLiteral("calls_without_cost"), e.callsWithoutCost},
                                             {QStringLiteral("orchestration_s"), e.orchestrationSeconds}});
    }
};

struct Name
{
    QString operator()(const SessionStarted &) const { return QStringLiteral("session"); }
    QString operator()(const BaselineEvaluated &) const { return QStringLiteral("baseline"); }
    QString operator()(const PlanCreated &) const { return QStringLiteral("plan"); }
    QString operator()(const CandidateCreated &) const { return QStringLiteral("candidate"); }
    QString operator()(const LlmCallStarted &) const { return QStringLiteral("llm_call"); }
    QString operator()(const LlmCallFinished &) const { return QStringLiteral("llm_reply"); }
    QString operator()(const EvaluationStarted &) const { return QStringLiteral("evaluation_started"); }
    QString operator()(const EvaluationFinished &) const { return QStringLiteral("evaluation"); }
    QString operator()(const FixChainStopped &) const { return QStringLiteral("fix_stopped"); }
    QString operator()(const BeamSelected &) const { return QStringLiteral("beam"); }
    QString operator()(const ExperienceStored &) const { return QStringLiteral("experience"); }
    QString operator()(const BestRemeasured &) const { return QStringLiteral("remeasured"); }
    QString operator()(const IterationFinished &) const { return QStringLiteral("iteration"); }
    QString operator()(const Stopped &) const { return QStringLiteral("finished"); }
};

} // namespace

QString SearchEvent::name() const
{
    return std::visit(Name{}, data);
}

QJsonObject SearchEvent::toJson() const
{
    QJsonObject o = std::visit(Json{}, data);
    o.insert(QStringLiteral("event"), name());
    o.insert(QStringLiteral("session"), sessionId);
    o.insert(QStringLiteral("elapsed_s"), elapsedSeconds);
    return o;
}
