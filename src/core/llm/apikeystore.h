#pragma once

#include "llm/endpoint.h"

#include <QObject>

#include <functional>

// Finds an endpoint's API key: in the system keychain (QtKeychain), in this process's memory, or in a named
// environment variable. When the keychain is unavailable (no Secret Service or KWallet on the session bus, as
// on headless machines) a key typed into the Models dialog is kept in memory for this session only, and a
// lookup says so and falls back to it, then to the variable. Keys pass through here to ChatClient::setApiKey
// and nowhere else: never into settings, logs or the database (docs/architecture.md, "Stores and files").
class ApiKeyStore : public QObject
{
    Q_OBJECT
public:
    struct Lookup
    {
        bool ok = false;
        QString key;
        QString source;  // "none", "keychain", "session", "env:NAME"
        QString message; // why it failed, or a note such as "keychain unavailable, used $NAME"
    };
    using LookupDone = std::function<void(const Lookup &)>;
    using StoreDone = std::function<void(bool ok, const QString &message)>;

    explicit ApiKeyStore(QObject *parent = nullptr);

    // A keychain that does not answer within this time counts as unavailable.
    void setKeychainTimeoutMs(int ms) { m_timeoutMs = ms; }
    // ACCELOPT_NO_KEYCHAIN=1 in the environment turns the keychain off (CI, containers).
    static bool keychainDisabled();
    static QString serviceName() { return QStringLiteral("AccelOpt Workbench"); }

    // Asynchronous; `done` runs on this object's thread, exactly once.
    void lookup(const Endpoint &endpoint, LookupDone done);
    // `ok` when the key can be used from now on: in the keychain, or, where there is no keychain, in memory
    // until the program ends (the message says which).
    void store(const Endpoint &endpoint, const QString &key, StoreDone done);
    void remove(const Endpoint &endpoint, StoreDone done);

    // Keys kept for this session only, shared by every thread of the process (the window's dialog stores, the
    // engine's search looks up) and never written anywhere.
    static void keepForSession(const Endpoint &endpoint, const QString &key);
    static QString sessionKey(const Endpoint &endpoint);
    static void forgetSessionKeys();

private:
    static Lookup fromEnvironment(const Endpoint &endpoint, const QString &why);
    static Lookup fromSessionOrEnvironment(const Endpoint &endpoint, const QString &why);
    int m_timeoutMs = 5000;
};
