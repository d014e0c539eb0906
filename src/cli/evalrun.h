#pragma once

#include "evalbatch.h"

#include <QList>
#include <QMap>
#include <QObject>
#include <QString>

#include <memory>

class HostPool;
class QCommandLineParser;
class SshPrompter;

// One batch of evaluations on a host pool of its own, without blocking the thread: `accelopt bench`, `suite`
// and `compare` wait for it on a local loop (EvalBatch::run); `accelopt mcp` answers other requests while it
// runs. Exactly one finished() per started batch, unless cancel() came first.
class EvalRun : public QObject
{
    Q_OBJECT
public:
    // Where and how a batch runs: what --host, --jobs, --backend and --target say.
    struct Settings
    {
        QString host = QStringLiteral("local");
        int jobs = 2;
        bool backendGiven = false; // else each request takes the host's backend
        bool targetGiven = false;  // else the host's target
        std::shared_ptr<SshPrompter> prompter; // answers an SSH host's questions; empty: refuse
    };
    // The settings the common options (EvalBatch::addCommonOptions) give, with the terminal's prompter.
    static Settings settingsOf(const QCommandLineParser &parser);

    explicit EvalRun(const Settings &settings, QObject *parent = nullptr);
    ~EvalRun() override;

    // False with `error` when the host cannot be set up (nothing runs then); an empty batch finishes at once.
    bool start(const QList<EvalBatch::Item> &items, QString &error);
    // Cancels what is queued or running; no signal follows.
    void cancel();
    bool isDone() const { return m_done; }
    QString hostName() const { return m_settings.host; }

Q_SIGNALS:
    void itemFinished(int index, const Evaluation &evaluation);
    void finished(const QList<Evaluation> &results); // in item order
    // The host was lost, failed or runs another runner version: what a person should read.
    void hostTrouble(const QString &message);

private:
    Settings m_settings;
    std::unique_ptr<HostPool> m_pool;
    QList<Evaluation> m_results;
    QMap<quint64, int> m_order; // job -> item index
    int m_remaining = 0;
    bool m_done = false;
};
