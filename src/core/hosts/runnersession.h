#pragma once

#include <QObject>
#include <QString>

#include <memory>

class Host;
class RunnerClient;

// One runner on slot 0 of a host, for a request that is not an evaluation (a port, a task check): opened on
// start(), shut down and closed when this goes. opened() hands over the client; failed() says, in words, why
// there is none or why it stopped before the caller was done.
class RunnerSession : public QObject
{
    Q_OBJECT
public:
    explicit RunnerSession(Host *host, QObject *parent = nullptr);
    ~RunnerSession() override;

    void start();
    RunnerClient *runner() const { return m_runner.get(); }

Q_SIGNALS:
    void opened(RunnerClient *runner);
    void failed(const QString &error);

private:
    Host *m_host = nullptr;
    std::unique_ptr<RunnerClient> m_runner;
};
