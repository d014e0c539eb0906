#include "hosts/hostprobe.h"

#include "hosts/host.h"
#include "hosts/hostfactory.h"
#include "hosts/runnerclient.h"
#include "hosts/sshhost.h"

#include <QJsonArray>
#include <QTimer>

QJsonObject HostProbe::Result::toJson(const QString &hostName) const
{
    QJsonObject o{{QStringLiteral("host"), hostName},
                  {QStringLiteral("ok"), ok},
                  {QStringLiteral("seconds"), seconds},
                  {QStringLiteral("hello"), hello}};
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    if (!fingerprint.isEmpty()) {
        o.insert(QStringLiteral("fingerprint"), fingerprint);
        o.insert(QStringLiteral("remote_dir"), remoteDir);
        o.insert(QStringLiteral("uploaded_files"), uploadedFiles);
    }
    return o;
}

HostProbe::HostProbe(QObject *parent) : QObject(parent) {}

HostProbe::~HostProbe() = default;

void HostProbe::start(const HostConfig &config, std::shared_ptr<SshPrompter> prompter, int timeoutMs)
{
    m_result = Result();
    m_done = false;
    const quint64 generation = ++m_generation;
    m_clock.start();
    HostConfig one = config;
    one.slotCount = 1;
    // The previous probe's host may be inside one of its own signals right now: let it go later, deaf to us.
    if (m_client)
        m_client.release()->deleteLater();
    if (m_host) {
        m_host->disconnect(this);
        m_host.release()->deleteLater();
    }
    m_host.reset(HostFactory::create(one, std::move(prompter)));
    if (!m_host) {
        finish(false, QStringLiteral("this build cannot reach a host of kind %1")
                          .arg(HostConfig::kindName(config.kind)));
        return;
    }
    Q_EMIT hostCreated(m_host.get());
    connect(m_host.get(), &Host::slotFailed, this,
            [this](int, const QString &why, bool) { finish(false, why); });
    connect(m_host.get(), &Host::slotClosed, this, [this](int, const QString &why) {
        finish(false, QStringLiteral("the runner stopped before it answered: %1").arg(why));
    });
    connect(m_host.get(), &Host::slotOpened, this, [this](int, QIODevice *stream) {
        m_client = std::make_unique<RunnerClient>(stream);
        connect(m_client.get(), &RunnerClient::helloReceived, this, [this](const QJsonObject &hello) {
            m_result.hello = hello;
            const int version = hello.value(QStringLiteral("protocol_version")).toInt(-1);
            if (version != RunnerClient::protocolVersion) {
                m_host->setState(Host::State::VersionMismatch);
                finish(false, QStringLiteral("the runner speaks protocol %1, this build speaks %2")
                                  .arg(version)
                                  .arg(RunnerClient::protocolVersion));
                return;
            }
            m_host->setState(Host::State::Ready);
            finish(true, {});
        });
        m_client->sendHello();
    });
    QTimer::singleShot(timeoutMs, this, [this, timeoutMs, generation] {
        if (generation == m_generation) // an older probe's timer must not fail this one
            finish(false, QStringLiteral("no answer within %1 s").arg(timeoutMs / 1000));
    });
    m_host->setState(Host::State::Connecting);
    m_host->openSlot(0);
}

void HostProbe::finish(bool ok, const QString &error)
{
    if (m_done)
        return;
    m_done = true;
    m_result.ok = ok;
    m_result.error = error;
    m_result.seconds = m_clock.elapsed() / 1000.0;
    if (auto *ssh = qobject_cast<SshHost *>(m_host.get())) {
        m_result.fingerprint = ssh->fingerprint();
        m_result.remoteDir = ssh->remoteDir();
        m_result.uploadedFiles = ssh->lastUploadedFiles();
    }
    if (!ok && m_host)
        m_host->setState(m_host->state() == Host::State::VersionMismatch ? Host::State::VersionMismatch
                                                                         : Host::State::Failed,
                         error);
    if (m_client)
        m_client->sendShutdown();
    const Result result = m_result;
    // Let the host go after this event: its own signal may be what brought us here.
    QMetaObject::invokeMethod(
        this,
        [this, generation = m_generation] {
            if (generation != m_generation)
                return; // a newer probe owns m_host now
            m_client.reset();
            m_host.reset();
        },
        Qt::QueuedConnection);
    Q_EMIT finished(result);
}

QString HostProbe::Result::slurmLine() const
{
    const QJsonObject slurm = hello.value(QStringLiteral("slurm")).toObject();
    if (slurm.isEmpty())
        return {};
    auto joined = [&slurm](const char *key) {
        QStringList words;
        for (const QJsonValue &v : slurm.value(QLatin1String(key)).toArray())
            words << v.toString();
        return words.isEmpty() ? QStringLiteral("?") : words.join(QStringLiteral(", "));
    };
    return QStringLiteral("job %1 on %2; partitions: %3")
        .arg(slurm.value(QStringLiteral("job_id")).toString(), joined("nodes"), joined("partitions"));
}

QStringList HostProbe::Result::nkiLines() const
{
    QStringList lines;
    const QJsonObject backends = hello.value(QStringLiteral("backends")).toObject();
    if (backends.contains(QStringLiteral("sim")))
        lines << QStringLiteral("sim: classic and current NKI (nkisim)");
    const QJsonObject neuron = backends.value(QStringLiteral("neuron")).toObject();
    if (neuron.isEmpty()) {
        const QString why =
            hello.value(QStringLiteral("unavailable")).toObject().value(QStringLiteral("neuron")).toString();
        if (!why.isEmpty())
            lines << QStringLiteral("neuron: not available: %1").arg(why);
        return lines;
    }
    QStringList generations;
    for (const QJsonValue &g : neuron.value(QStringLiteral("generations")).toArray())
        generations << g.toString();
    const QJsonObject current = neuron.value(QStringLiteral("nki_current")).toObject();
    lines << QStringLiteral("neuron: SDK %1 (neuronx-cc %2%3): takes %4 NKI")
                 .arg(
                     neuron.value(QStringLiteral("sdk_release")).toString(QStringLiteral("?")),
                     neuron.value(QStringLiteral("neuronx_cc")).toString(QStringLiteral("?")),
                     current.value(QStringLiteral("present")).toBool()
                         ? QStringLiteral(", nki %1").arg(current.value(QStringLiteral("version")).toString())
                         : QString(),
                     generations.isEmpty() ? QStringLiteral("no")
                                           : generations.join(QStringLiteral(" and ")));
    const QJsonObject notes = neuron.value(QStringLiteral("generation_notes")).toObject();
    for (auto it = notes.begin(); it != notes.end(); ++it)
        lines << QStringLiteral("  %1: %2").arg(it.key(), it.value().toString());
    return lines;
}
