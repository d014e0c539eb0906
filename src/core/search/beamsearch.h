#pragma once

#include "llm/agentrole.h"
#include "llm/chatmessage.h"
#include "llm/chatreply.h"
#include "model/candidate.h"
#include "model/evalrequest.h"
#include "model/evaluation.h"
#include "model/plan.h"
#include "model/calibration.h"
#include "search/agentcall.h"
#include "search/busyclock.h"
#include "search/callbook.h"
#include "search/inflight.h"
#include "search/remeasurement.h"
#include "search/searchconfig.h"
#include "search/searchevent.h"
#include "search/searchjob.h"
#include "search/searchtask.h"
#include "search/selection.h"
#include "search/spendledger.h"
#include "search/stoprules.h"
#include "search/twinregistry.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QSet>

#include <functional>
#include <optional>

class AgentClients;
class ChatClient;
class ExperienceStore;
class HostPool;
class PromptLibrary;
class SessionStore;

// The orchestrator of one optimization (docs/architecture.md, "One optimization"). Event-driven: every step
// is a ChatClient call or a HostPool job, and the search advances in their finished() handlers, so nothing
// blocks the thread it lives on. Per iteration and beam kernel it asks the planner N times, each plan the
// executor K times, evaluates every kernel, sends failures to the fixer (up to F rounds), then selects the
// next beam (Selection) and has the summarizer turn the iteration's strongest slow->fast pairs into
// experiences. A failed call or evaluation costs one sample, never the step; an iteration in which every
// model call failed ends the search (StopReason::ModelsFailed). Everything goes to the SessionStore as it
// happens, and every step is told to observers as a SearchEvent. Within a session, a kernel whose normalized
// source was already evaluated takes over that evaluation (marked as reused) instead of being measured again.
// Each concern has a room of its own (InFlight, CallBook, TwinRegistry, Cascade, Remeasurement, SpendLedger);
// this class orders the steps.
class BeamSearch : public QObject
{
    Q_OBJECT
public:
    using Task = SearchTask;
    enum class State
    {
        Idle,
        Baseline,
        Generating, // planner, executor, fixer calls and evaluations of one iteration
        Summarizing,
        Remeasuring, // the search has ended; its best kernel runs again before it is reported
                     // (BestRemeasured)
        Finished
    };

    BeamSearch(HostPool *pool, SessionStore *store, const PromptLibrary *prompts, QObject *parent = nullptr);
    ~BeamSearch() override;

    void setClient(ChatClient *client);                            // every role
    void setClient(AgentRole role, ChatClient *client);            // one role
    void setClients(AgentClients *clients);                        // the roster's pick per call; wins
    void setMemory(ExperienceStore *memory) { m_memory = memory; } // optional: no memory, no experiences
    // The two-stage evaluation (SearchConfig::confirmOn, issue 34): the hardware host's pool and the backend
    // its requests name ("neuron"). Without it a config that names a confirm host is refused at start.
    void setConfirmPool(HostPool *pool, const QString &backend);

    // False (with the reason in lastError()) when the config is invalid, a role has no client or the store
    // refuses the session. Otherwise the baseline is submitted and finished() follows eventually.
    bool start(const Task &task, const SearchConfig &config);
    // Continues a stopped or crashed session (ResumePoint): the unfinished iteration is rerun, replaying
    // from the stores what had already landed. `config` replaces the session's settings (e.g. more
    // iterations or a larger budget). The wall-time budget counts from the resume. False with lastError().
    bool resume(const QString &sessionId, const std::optional<SearchConfig> &config = std::nullopt);
    void stop(); // cancels what is in flight; finished(Stopped) follows at once

    State state() const { return m_state; }
    QString sessionId() const { return m_sessionId; }
    QString lastError() const { return m_error; }
    int iteration() const { return m_iteration; }
    QStringList beam() const;
    // The session's best kernel by Selection::isBetterBest, the rule every front end applies.
    QString bestCandidateId() const { return m_bestId; }
    std::optional<Evaluation> bestEvaluation() const;
    double costUsd() const { return m_spend.costUsd(); }
    qint64 tokens() const { return m_spend.tokens(); }
    StopReason stopReason() const { return m_stopReason; }
    const Task &task() const { return m_task; }
    const SearchConfig &config() const { return m_config; }
    // Time spent in the search's own code (prompt building, parsing, selection, store writes), not waiting
    // for models or hosts: the orchestration overhead.
    double orchestrationSeconds() const { return m_busy.seconds(); }
    double orchestrationCpuSeconds() const
    {
        return m_busy.cpuSeconds();
    } // of it, on this thread's CPU clock
    int candidateCount() const { return int(m_candidates.size()); }

Q_SIGNALS:
    void event(const SearchEvent &event);
    void finished(StopReason reason); // after the Stopped event

private:
    using Call = AgentCall;
    using Job = SearchJob;

    ChatClient *clientFor(AgentRole role, const QString &key) const;
    void connectClient(ChatClient *client);
    bool begin(const Task &task, const SearchConfig &config);
    void send(Call call, const ChatMessages &messages, const QString &tag);
    void later(const std::function<void()> &work); // on the event loop, dropped if this run has ended
    qint64 seedOf(const Call &call) const;
    void onChatFinished(const Call &call, const ChatReply &reply);
    void onEvaluationFinished(quint64 job, const Evaluation &evaluation);
    // The job of jobId taken out of jobs, or nothing when it is not ours or was a re-measurement (handled here).
    std::optional<Job> finishedJob(QHash<quint64, Job> &jobs, quint64 jobId, const Evaluation &evaluation);
    void onEvaluation(const Job &job, const Evaluation &evaluation, bool fresh);
    void onBaseline(const Evaluation &evaluation);
    void startIteration();
    void askPlanner(const QString &beamKernelId, int planIndex);
    void onPlan(const Call &call, const ChatReply &reply);
    void onKernel(const Call &call, const ChatReply &reply);
    void onSummary(const Call &call, const ChatReply &reply);
    void submitCandidate(const Candidate &candidate, const QString &beamParentId, const Plan &plan,
                         bool check = false);
    void dispatch(const Job &job); // a job whose work is open: from the store, a twin, or the host pool
    void reuse(const Job &job, const Evaluation &measured, const QString &measuredId);
    bool startChecks();
    // The two-stage evaluation (Confirmation): once the cascade has nothing left to check, the children that
    // could change the outcome by nkisim's numbers go to the hardware host; false when none is left.
    bool confirming() const { return m_confirmPool && !m_config.confirmOn.isEmpty(); }
    bool startConfirmations();
    void confirm(const QString &candidateId, const QString &beamParentId);
    void onConfirmFinished(quint64 job, const Evaluation &evaluation);
    void onConfirmed(const Job &job, const Evaluation &device);
    void noteConfirmed(const QString &candidateId, const Evaluation &simulated, const Evaluation &device);
    QList<ScoredKernel> simulatedView(const QList<ScoredKernel> &kernels) const;
    void settleCheckedTwins(const Candidate &checked, const Evaluation &evaluation);
    void stepDone(); // the last outstanding work of the current step has landed
    void selectAndSummarize();
    void recordOutcomes();
    void prepareMemory();
    void finishIteration();
    void finish(StopReason reason);
    bool remeasureBest(StopReason reason);
    void onRemeasured(const QString &candidateId, const EvalRequest &request, const Evaluation &evaluation);
    EvalRequest
    requestFor(const Candidate &candidate) const; // as the session measures: its task, size, target
    EvalRequest deviceRequestFor(const Candidate &candidate) const; // the same, on the confirm host
    void chooseBest();
    bool checkBudgets();
    bool storeOk(bool ok, const QString &what);
    template<typename T> void tell(T &&data);
    void offerBest(const QString &candidateId, const Evaluation &evaluation);
    SearchEvents::Totals totals() const;

    HostPool *m_pool;
    SessionStore *m_store;
    const PromptLibrary *m_prompts;
    ExperienceStore *m_memory = nullptr;
    QMap<AgentRole, ChatClient *> m_clients;
    AgentClients *m_agentClients = nullptr;
    QList<ChatClient *> m_connected;

    Task m_task;
    SearchConfig m_config;
    State m_state = State::Idle;
    QString m_sessionId;
    QString m_error;
    StopReason m_stopReason = StopReason::None;
    int m_iteration = 0;
    int m_withoutImprovement = 0;
    QElapsedTimer m_clock;

    // The rooms (each in a file pair of its own): the step's outstanding work, the calls out and their
    // replay, twins and reuse, the best kernel's re-measurement, what was spent, and the time spent in our
    // own code.
    InFlight m_inFlight;
    CallBook m_calls;
    TwinRegistry m_twins;
    Remeasurement m_remeasure;
    SpendLedger m_spend;
    BusyClock m_busy;

    QHash<QString, Candidate> m_candidates;
    QHash<QString, Evaluation> m_evaluations;
    QList<ScoredKernel> m_beam;
    QList<ScoredKernel> m_children;
    QSet<QString> m_shownPlans;    // this iteration's plans that were shown experiences
    ScoredKernel m_best;           // the beam's leader, which improvement (patience) is measured against
    QString m_bestId;              // the session's best by Selection::isBetterBest, never a demoted kernel
    QHash<quint64, Job> m_jobs;    // by pool job
    QHash<QString, Plan> m_planOf; // candidate id -> the plan it carries out, for its check's fixer
    QString m_baselineId;
    QList<ExperiencePair> m_pairs;
    quint64 m_generation = 0; // bumped when a run starts or ends, so replays queued for an older one drop

    // The two-stage evaluation: the hardware host, its jobs (by its own pool's job ids), the nkisim
    // evaluation of every kernel measured there (m_evaluations then holds the device's), and the margins
    // calibration gives per kind of kernel.
    HostPool *m_confirmPool = nullptr;
    QString m_confirmBackend;
    QHash<quint64, Job> m_confirmJobs;
    QHash<QString, Evaluation> m_simulated;
    Calibration m_calibration;
};
