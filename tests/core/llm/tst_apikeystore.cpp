#include "llm/apikeystore.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusVirtualObject>
#include <QProcess>
#include <QTest>

// ApiKeyStore against a keychain that never answers. A STAND-IN for KWallet, for tests only: a private
// dbus-daemon (the real one) on which this test owns org.kde.kwalletd5 and takes every call to its wallet
// object without ever replying, as a wallet stuck behind an unlock dialog nobody sees does. QtKeychain talks
// to it over the real D-Bus protocol.
class TestApiKeyStore : public QObject
{
    Q_OBJECT

    class SilentWallet : public QDBusVirtualObject
    {
    public:
        int calls = 0;
        QString introspect(const QString &) const override { return {}; }
        bool handleMessage(const QDBusMessage &message, const QDBusConnection &) override
        {
            if (message.type() == QDBusMessage::MethodCallMessage)
                ++calls;
            return true; // taken, and never answered
        }
    };

    QProcess m_bus;
    SilentWallet m_wallet;

    static Endpoint endpoint()
    {
        Endpoint e;
        e.name = QStringLiteral("stuck");
        e.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
        e.model = QStringLiteral("m");
        e.keySource = Endpoint::KeySource::Keychain;
        e.keyEnvVar = QStringLiteral("ACCELOPT_STUCK_KEY");
        return e;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_bus.start(QStringLiteral("dbus-daemon"), {QStringLiteral("--session"), QStringLiteral("--nofork"),
                                                    QStringLiteral("--print-address=1")});
        if (!m_bus.waitForStarted(5000))
            QSKIP("dbus-daemon is not installed (packaging/install-deps.sh installs it)");
        QVERIFY(m_bus.waitForReadyRead(5000));
        const QByteArray address = m_bus.readLine().trimmed();
        QVERIFY(!address.isEmpty());
        // Before anything opens the session bus: this process's keychain jobs go to the private one.
        qputenv("DBUS_SESSION_BUS_ADDRESS", address);
        qputenv("XDG_CURRENT_DESKTOP", "KDE");
        qputenv("KDE_SESSION_VERSION", "5");
        qunsetenv("ACCELOPT_NO_KEYCHAIN");
        QDBusConnection wallet =
            QDBusConnection::connectToBus(QString::fromUtf8(address), QStringLiteral("silent-wallet"));
        QVERIFY2(wallet.isConnected(), qPrintable(wallet.lastError().message()));
        QVERIFY(wallet.registerService(QStringLiteral("org.kde.kwalletd5")));
        QVERIFY(wallet.registerVirtualObject(QStringLiteral("/modules/kwalletd5"), &m_wallet,
                                             QDBusConnection::SubPath));
    }

    void cleanupTestCase()
    {
        QDBusConnection::disconnectFromBus(QStringLiteral("silent-wallet"));
        m_bus.kill();
        m_bus.waitForFinished(5000);
    }

    void aStoreThatTimesOutSaysTheKeyMayStillLand()
    {
        ApiKeyStore keys;
        keys.setKeychainTimeoutMs(2000); // room for a loaded machine to reach the wallet at all
        std::optional<std::pair<bool, QString>> stored;
        keys.store(endpoint(), QStringLiteral("sk-never-shown"),
                   [&](bool ok, const QString &message) { stored = std::make_pair(ok, message); });
        QVERIFY(QTest::qWaitFor([&] { return stored.has_value(); }, 10000));
        QVERIFY2(m_wallet.calls > 0, "the keychain never asked the wallet: it did not time out, it failed");
        QVERIFY(!stored->first);
        const QString &message = stored->second;
        QVERIFY2(message.contains(QStringLiteral("did not answer within 2 s")) &&
                     message.contains(QStringLiteral("may still store it")) &&
                     message.contains(QStringLiteral("ACCELOPT_STUCK_KEY")) &&
                     !message.contains(QStringLiteral("sk-never-shown")),
                 qPrintable(message));
    }

    void aLookupThatTimesOutFallsBackToTheVariable()
    {
        qputenv("ACCELOPT_STUCK_KEY", "sk-from-the-environment");
        ApiKeyStore keys;
        keys.setKeychainTimeoutMs(2000); // room for a loaded machine to reach the wallet at all
        std::optional<ApiKeyStore::Lookup> found;
        keys.lookup(endpoint(), [&](const ApiKeyStore::Lookup &l) { found = l; });
        QVERIFY(QTest::qWaitFor([&] { return found.has_value(); }, 10000));
        qunsetenv("ACCELOPT_STUCK_KEY");
        QVERIFY2(found->ok, qPrintable(found->message));
        QCOMPARE(found->key, QStringLiteral("sk-from-the-environment"));
        QCOMPARE(found->source, QStringLiteral("env:ACCELOPT_STUCK_KEY"));
        QVERIFY2(found->message.contains(QStringLiteral("did not answer")), qPrintable(found->message));
    }
};

QTEST_GUILESS_MAIN(TestApiKeyStore)
#include "tst_apikeystore.moc"
