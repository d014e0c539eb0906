#pragma once

#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>

class Host;

// Turns a classic-API kernel (neuronxcc.nki) into a current one (the nki namespace), as Neuron SDKs from 2.30
// require. The runner's port op tries its rules first; where they do not suffice (a construct without a rule,
// or a port nkisim finds unequal), the executor model writes the port from a migration plan, and the runner
// checks that candidate. A port counts only when nkisim finds its outputs equal to the original's on every
// seed, within the task's tolerance.
class KernelPort : public QObject
{
    Q_OBJECT
public:
    struct Request
    {
        QString kernel;    // the classic source
        QString reference; // the task's reference, shown to the model; empty: read from `task`
        QJsonObject task;  // as in an eval request
        QString size = QStringLiteral("small");
        QList<int> seeds;  // empty: the runner's
        QString candidate; // a port to check instead of porting (the user's own)
        bool useModel = true;
        QString llmConfig; // empty: LlmConfig::defaultPath()
    };
    struct Result
    {
        bool ok = false;
        QString kernel;       // the port, when there is one (also a port that is not equal, to look at)
        QString by;           // "rules", "model" or "candidate"
        QStringList rules;    // the rules applied
        QJsonObject equal;    // the runner's figures: l2_rel_diff, rel_tol, seeds, ...
        QString error;        // why there is no port, in words
        QStringList unported; // "line N: construct: why", when the rules stopped
    };
    static constexpr int maxModelAttempts = 2;

    KernelPort(Host *host, QObject *parent = nullptr); // the host runs the port op (slot 0)
    ~KernelPort() override;

    void start(const Request &request);

Q_SIGNALS:
    void progress(const QString &message);
    void finished(const KernelPort::Result &result);

private:
    void sendPort(const QString &candidate);
    void onPortResult(const QJsonObject &result);
    void askModel(const QString &why);
    void done(Result result);

    struct Parts;
    std::unique_ptr<Parts> m_parts;
};
