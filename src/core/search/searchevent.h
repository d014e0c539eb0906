#pragma once

#include "llm/agentrole.h"
#include "model/candidate.h"
#include "model/evaluation.h"
#include "model/plan.h"
#include "search/searchconfig.h"
#include "search/searchtask.h"
#include "search/stoprules.h"

#include <QJsonObject>
#include <QMap>
#include <QStringList>

#include <optional>
#include <variant>

// What a running search tells its observers, one value per step, so a live view, the CLI's progress lines and
// its --json lines are all printed from the same facts. Every event names its session; the ones about a
// kernel name its candidate id, the ones about a model call the call's number within this run.
namespace SearchEvents {

struct SessionStarted
{
    bool resumed = false;
    int iteration = 0; // where it starts: 0 the baseline, else the iteration that is (re)run
    SearchTask task;
    SearchConfig config;
};

struct BaselineEvaluated
{
    QString candidateId;
    Evaluation evaluation;
};

struct PlanCreated
{
    int iteration = 0;
    QString planId;
    QString parentCandidateId; // the beam kernel the plan is for
    int planIndex = 0;
    Plan plan;
};

struct CandidateCreated
{
    Candidate candidate; // with its source
};

struct LlmCallStarted
{
    quint64 call = 0; // numbered within this run
    AgentRole role = AgentRole::Planner;
    int iteration = 0;
    QString tag; // what the call is about: a plan or candidate id
    bool replayed = false;
};

struct LlmCallFinished
{
    quint64 call = 0;
    AgentRole role = AgentRole::Planner;
    int iteration = 0;
    bool ok = false;
    QString error;
    std::optional<qint64> promptTokens;
    std::optional<qint64> completionTokens;
    std::optional<double> costUsd;
    QString model;
    bool replayed = false; // answered from the session's record (a resume): not paid for again
};

struct EvaluationStarted
{
    QString candidateId;
    int iteration = 0;
};

struct EvaluationFinished
{
    QString candidateId;
    int iteration = 0;
    Evaluation evaluation; // evaluation.reusedFrom is set when a twin's measurement was taken over
    bool replayed = false; // read back from the store on a resume
};

// A failed kernel was not sent to the fixer again: it repeats a kernel already tried (FixChain).
struct FixChainStopped
{
    QString candidateId; // the fixer's kernel that repeats
    int iteration = 0;
    int fixRound = 0;
    QString repeatsCandidateId;
    bool ownChain =
        false;      // an earlier kernel of its own chain, else a twin measured elsewhere in the session
    QString reason; // FixChain::reason, for people
};

struct BeamSelected
{
    int iteration = 0;
    QStringList candidateIds; // fastest first
    bool improved = false;
};

struct ExperienceStored
{
    int iteration = 0;
    QString title;
    QString slowCandidateId;
    QString fastCandidateId;
    double speedup = 1.0; // as measured: below 1 for a negative experience
};

// Before a kernel is reported as the session's best it runs again: on fresh seeds, and on the task's small
// parameter set when the session ran at full size. A kernel that hard-codes shapes or replays results fails
// there and is demoted (never reported or exported as the best); the next best is re-measured in turn.
struct BestRemeasured
{
    QString candidateId;
    QString size;
    QList<int> seeds;
    Evaluation evaluation;
    bool demoted = false; // Selection::failsRemeasure
};

// Where the search stands after an iteration's selection and lessons, or when it ends.
struct Totals
{
    int iterations = 0; // T
    QString bestCandidateId;
    std::optional<Evaluation> best;
    std::optional<double> baselineLatencyMs;
    std::optional<double> speedup; // of the best over the baseline
    int candidates = 0;            // of the whole session
    int usable = 0;                // correct with a latency
    int reused = 0;                // evaluations taken over from a twin kernel
    // The two-stage evaluation (SearchConfig::confirmOn, issue 34); empty and 0 when it is off. Candidates
    // whose ranking numbers come from the device (measured there, or taken over from a twin that was), and
    // those only nkisim measured: the device evaluations the search saved.
    QString confirmOn;
    int deviceEvaluations = 0;
    int simulatedOnly = 0;
    double costUsd = 0;
    qint64 tokens = 0;
    QMap<QString, double> costUsdByRole;
    QMap<QString, qint64> tokensByRole;
};

struct IterationFinished
{
    int iteration = 0;
    int candidates = 0; // of this iteration
    int usable = 0;
    Totals totals;
    int unchecked = 0; // only timed: not fast enough to matter, so never checked (the cascade)
};

struct Stopped
{
    StopReason reason = StopReason::None;
    QString error;
    int iterationsDone = 0;
    Totals totals; // cost and tokens as the session store booked them, over every run of the session
    int llmCalls = 0;
    int callsWithoutCost = 0; // no price known for the model
    double orchestrationSeconds = 0;
    // False when the session's file was removed or replaced under the run: its id names nothing any more.
    bool stored = true;
};

} // namespace SearchEvents

using SearchEventData =
    std::variant<SearchEvents::SessionStarted, SearchEvents::BaselineEvaluated, SearchEvents::PlanCreated,
                 SearchEvents::CandidateCreated, SearchEvents::LlmCallStarted, SearchEvents::LlmCallFinished,
                 SearchEvents::EvaluationStarted, SearchEvents::EvaluationFinished,
                 SearchEvents::FixChainStopped, SearchEvents::BeamSelected, SearchEvents::ExperienceStored,
                 SearchEvents::BestRemeasured, SearchEvents::IterationFinished, SearchEvents::Stopped>;

struct SearchEvent
{
    QString sessionId;
    double elapsedSeconds = 0; // since this run of the search began
    SearchEventData data;
    // When it was told, on std::chrono::steady_clock, in ns: lets an observer on another thread measure how
    // long the event took to reach it.
    qint64 toldAtNs = 0;

    template<typename T> const T *as() const { return std::get_if<T>(&data); }
    // "session", "baseline", "plan", "candidate", "llm_call", "llm_reply", "evaluation_started",
    // "evaluation", "fix_stopped", "beam", "experience", "remeasured", "iteration", "finished": the `event`
    // of the --json lines.
    QString name() const;
    QJsonObject toJson() const;
};
