#pragma once

#include "hosts/host.h"
#include "model/evalrequest.h"
#include "model/evaluation.h"

#include <QElapsedTimer>
#include <QList>
#include <QMap>
#include <QObject>

class QIODevice;
class QTimer;
class RunnerClient;

// Schedules evaluations onto free slots across hosts: one long-lived runner per slot, a queue in submission
// order (a kernel skips a host whose Neuron SDK refuses its NKI generation while another can take it), retry
// of an evaluation whose slot died (a dropped connection, a crashed runner), and exactly one reported result
// per job: a late answer from a slot that was given up on is dropped.
class HostPool : public QObject
{
    Q_OBJECT
public:
    static constexpr int maxAttempts = 3;
    static constexpr int maxSlotRestarts = 5;
    // A job whose host connection dropped this often while it ran fails; a flaky network is not the kernel's
    // fault, so this is far more than maxAttempts, which bounds runners dying under it.
    static constexpr int maxConnectionLosses = 12;
    // How long an unreachable host (connection refused, timed out) is tried again, with backoff, before its
    // queue fails: a restarting sshd or a network blip must not fail every queued evaluation.
    static constexpr int unreachableWindowMs = 120000;
    static constexpr int maxReconnectDelayMs = 15000;
    static constexpr int defaultPrefetchBelowMs = 1000;

    explicit HostPool(QObject *parent = nullptr);
    ~HostPool() override;

    // Queue a slot's next job at its runner only behind evaluations shorter than this (see Slot::next).
    void setPrefetchBelowMs(int ms) { m_prefetchBelowMs = ms; }
    void addHost(Host *host); // takes ownership
    QList<Host *> hosts() const { return m_hosts; }
    void start();
    void stop();

    quint64 submit(const EvalRequest &request);
    void cancel(quint64 job);
    void cancelAll();
    int queuedCount() const { return int(m_queue.size()); }
    int runningCount() const;
    int liveSlotCount() const;
    // How long a busy slot may stay silent before its runner counts as stuck.
    static int watchdogMs(double timeoutSeconds);

Q_SIGNALS:
    void evaluationFinished(quint64 job, const Evaluation &evaluation);
    void hostStateChanged(Host *host, Host::State state, const QString &detail);
    void idle(); // nothing queued, nothing running

private:
    enum class SlotState
    {
        Closed,
        Opening,
        Greeting,
        Idle,
        Busy,
        Dead
    };
    struct Slot
    {
        Host *host = nullptr;
        int index = 0;
        SlotState state = SlotState::Closed;
        RunnerClient *client = nullptr;
        quint64 job = 0; // running
        QString requestId;
        QElapsedTimer running; // since `job` started
        // The next job, already sent and queued at the runner behind the running one, so it starts the moment
        // that one ends: with short evaluations the round trip between them left slots idle a third of the
        // time. Only behind evaluations that took under m_prefetchBelowMs, so a long one never holds a job
        // back from a slot that frees up meanwhile.
        quint64 next = 0;
        QString nextRequestId;
        qint64 lastEvalMs = -1;
        int restarts = 0;
        int reconnects = 0;           // tries since the host became unreachable
        QElapsedTimer unreachableFor; // invalid while the host answers
        QTimer *watchdog = nullptr;
        QString lastError;
        QStringList neuronGenerations; // the NKI its Neuron SDK takes, from hello; empty: unknown or none
    };
    struct Job
    {
        EvalRequest request;
        QString generation;       // of the kernel: "classic" or "current"
        int attempts = 0;         // times sent to a runner
        int runnerLosses = 0;     // runners that died with it: maybe its kernel's doing
        int connectionLosses = 0; // connections that dropped with it: never its kernel's doing
    };

        Slot *slotFor(Host *host, int index);
        void onSlotOpened(Host *host, int index, QIODevice *stream);
        void onSlotGone(Host *host, int index, const QString &reason, bool failedToOpen, bool transient);
        void reopenLater(Slot *slot, int delayMs);
        void onHello(Slot *slot, const QJsonObject &hello);
        void onResult(Slot *slot, const Evaluation &evaluation);
        void dispatch();
        Slot *nextIdleSlot(const QList<Slot *> &skipped) const;
        qsizetype
        pickFor(const Slot *slot) const; // the queue index of the first job the slot may take, or -1
        void send(Slot *slot, quint64 job, bool asNext);
        static bool accepts(const Slot *slot, const Job &job);
        bool someSlotCouldTake(const Job &job) const;
        void finish(quint64 job, Evaluation evaluation);
        void releaseClient(Slot *slot);
        void refreshHostState(Host *host);
        void failQueueIfNoSlotCanServe();

        QList<Host *> m_hosts;
        QList<Slot *> m_slots;
        QMap<quint64, Job> m_jobs;
        QList<quint64> m_queue;
        quint64 m_nextJob = 1;
        bool m_stopping = false;
        int m_prefetchBelowMs = defaultPrefetchBelowMs;
    };
