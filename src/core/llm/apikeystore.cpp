#include "llm/apikeystore.h"

#include "common/logcategories.h"

#include <QHash>
#include <QMutex>
#include <QTimer>
#include <qt6keychain/keychain.h>

#include <memory>

namespace {
QMutex sessionKeysLock;
QHash<QString, QString> &sessionKeys() // keychain entry name -> key
{
    static QHash<QString, QString> keys;
    return keys;
}

// Runs a keychain job with a deadline; whichever comes first (the job's answer or the deadline) wins, and the
// other is ignored. `onDone` gets an empty error on success.
template<typename JobT>
void runJob(JobT *job, int timeoutMs, QObject *context,
            std::function<void(JobT *, const QString &error)> onDone)
{
    auto settled = std::make_shared<bool>(false);
    job->setAutoDelete(true);
    job->setInsecureFallback(false); // never a plain-text file in place of the keychain
    QObject::connect(job, &QKeychain::Job::finished, context, [job, settled, onDone](QKeychain::Job *) {
        if (std::exchange(*settled, true))
            return;
        onDone(job, job->error() == QKeychain::NoError ? QString() : job->errorString());
    });
    QTimer::singleShot(timeoutMs, context, [job, settled, onDone, timeoutMs] {
        if (std::exchange(*settled, true))
            return;
        onDone(nullptr, QStringLiteral("the keychain did not answer within %1 s").arg(timeoutMs / 1000.0));
    });
    job->start();
}
} // namespace

ApiKeyStore::ApiKeyStore(QObject *parent) : QObject(parent) {}

bool ApiKeyStore::keychainDisabled()
{
    return qEnvironmentVariableIntValue("ACCELOPT_NO_KEYCHAIN") != 0;
}

void ApiKeyStore::keepForSession(const Endpoint &endpoint, const QString &key)
{
    const QMutexLocker lock(&sessionKeysLock);
    sessionKeys().insert(endpoint.keychainKey(), key);
}

QString ApiKeyStore::sessionKey(const Endpoint &endpoint)
{
    const QMutexLocker lock(&sessionKeysLock);
    return sessionKeys().value(endpoint.keychainKey());
}

void ApiKeyStore::forgetSessionKeys()
{
    const QMutexLocker lock(&sessionKeysLock);
    sessionKeys().clear();
}

ApiKeyStore::Lookup ApiKeyStore::fromSessionOrEnvironment(const Endpoint &endpoint, const QString &why)
{
    const QString key = sessionKey(endpoint);
    if (key.isEmpty())
        return fromEnvironment(endpoint, why);
    Lookup r;
    r.ok = true;
    r.key = key;
    r.source = QStringLiteral("session");
    r.message = QStringLiteral("%1; using the key typed in this session").arg(why);
    return r;
}

ApiKeyStore::Lookup ApiKeyStore::fromEnvironment(const Endpoint &endpoint, const QString &why)
{
    Lookup r;
    const QString var = endpoint.keyEnvVar.trimmed();
    if (var.isEmpty()) {
        r.message =
            why.isEmpty()
                ? QStringLiteral("no environment variable is named for endpoint '%1'").arg(endpoint.name)
                : QStringLiteral("%1, and no environment variable is named for endpoint '%2' to fall back on")
                      .arg(why, endpoint.name);
        return r;
    }
    const QString key = qEnvironmentVariable(var.toLocal8Bit().constData()).trimmed();
    if (key.isEmpty()) {
        r.message = why.isEmpty()
                        ? QStringLiteral("the environment variable %1 is not set").arg(var)
                        : QStringLiteral("%1, and the environment variable %2 is not set").arg(why, var);
        return r;
    }
    r.ok = true;
    r.key = key;
    r.source = QStringLiteral("env:") + var;
    r.message =
        why.isEmpty() ? QString() : QStringLiteral("%1; using the environment variable %2").arg(why, var);
    return r;
}

void ApiKeyStore::lookup(const Endpoint &endpoint, LookupDone done)
{
    switch (endpoint.keySource) {
    case Endpoint::KeySource::None: {
        Lookup r;
        r.ok = true;
        r.source = QStringLiteral("none");
        QTimer::singleShot(0, this, [done, r] { done(r); });
        return;
    }
    case Endpoint::KeySource::Environment: {
        const Lookup r = fromEnvironment(endpoint, QString());
        QTimer::singleShot(0, this, [done, r] { done(r); });
        return;
    }
    case Endpoint::KeySource::Keychain:
        break;
    }
    if (keychainDisabled()) {
        const Lookup r = fromSessionOrEnvironment(
            endpoint, QStringLiteral("the keychain is turned off (ACCELOPT_NO_KEYCHAIN)"));
        QTimer::singleShot(0, this, [done, r] { done(r); });
        return;
    }
    auto *job = new QKeychain::ReadPasswordJob(serviceName(), this);
    job->setKey(endpoint.keychainKey());
    runJob<QKeychain::ReadPasswordJob>(
        job, m_timeoutMs, this, [endpoint, done](QKeychain::ReadPasswordJob *j, const QString &error) {
            if (error.isEmpty() && j && !j->textData().isEmpty()) {
                Lookup r;
                r.ok = true;
                r.key = j->textData();
                r.source = QStringLiteral("keychain");
                done(r);
                return;
            }
            const QString why = error.isEmpty()
                                    ? QStringLiteral("the keychain holds no key for '%1'").arg(endpoint.name)
                                    : QStringLiteral("the system keychain is unavailable (%1)").arg(error);
            qCInfo(lcLlm).noquote() << why;
            done(fromSessionOrEnvironment(endpoint, why));
        });
}

void ApiKeyStore::store(const Endpoint &endpoint, const QString &key, StoreDone done)
{
    // Where there is no keychain the key still works until the program ends, and is never written down.
    const auto sessionOnly = [endpoint, key](const QString &why) {
        keepForSession(endpoint, key);
        // Short: the Models dialog shows it beside Test Call, where a long one squeezes the form.
        return QStringLiteral("%1: the key for '%2' is kept for this session only, never on disk")
            .arg(why, endpoint.name);
    };
    if (keychainDisabled()) {
        const QString message = sessionOnly(QStringLiteral("the keychain is turned off (ACCELOPT_NO_KEYCHAIN)"));
        QTimer::singleShot(0, this, [done, message] { done(true, message); });
        return;
    }
    auto *job = new QKeychain::WritePasswordJob(serviceName(), this);
    job->setKey(endpoint.keychainKey());
    job->setTextData(key);
    runJob<QKeychain::WritePasswordJob>(
        job, m_timeoutMs, this,
        [endpoint, done, sessionOnly](QKeychain::WritePasswordJob *j, const QString &error) {
            if (error.isEmpty())
                done(true, QStringLiteral("the key for '%1' is in the system keychain").arg(endpoint.name));
            else if (!j) // the deadline came first: the keychain may still store it when it answers
                done(false,
                     QStringLiteral("%1, so whether it holds the key for '%2' is not known: it may still "
                                    "store it when it answers. Use Test to see which key is used, or "
                                    "set the environment variable %3 instead")
                         .arg(error, endpoint.name,
                              endpoint.keyEnvVar.isEmpty() ? QStringLiteral("named in the endpoint")
                                                           : endpoint.keyEnvVar));
            else // no keychain on this machine (no Secret Service on D-Bus): this session only
                done(true, sessionOnly(QStringLiteral("no system keychain here (%1)").arg(error)));
        });
}

void ApiKeyStore::remove(const Endpoint &endpoint, StoreDone done)
{
    if (keychainDisabled()) {
        QTimer::singleShot(0, this, [done] { done(true, QString()); });
        return;
    }
    auto *job = new QKeychain::DeletePasswordJob(serviceName(), this);
    job->setKey(endpoint.keychainKey());
    runJob<QKeychain::DeletePasswordJob>(
        job, m_timeoutMs, this, [done](QKeychain::DeletePasswordJob *j, const QString &error) {
            done(error.isEmpty(),
                 j || error.isEmpty()
                     ? error
                     : error + QStringLiteral(", so the key may or may not have been removed"));
        });
}
