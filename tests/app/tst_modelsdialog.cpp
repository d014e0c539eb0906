#include "appcontext.h"
#include "engine/settingsservice.h"
#include "isolatedsettings.h"
#include "llm/agentclients.h"
#include "llm/apikeystore.h"
#include "llm/chatclient.h"
#include "llm/endpointpresets.h"
#include "llm/llmconfig.h"
#include "modelsdialog.h"
#include "scriptedllmserver.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QTableWidget>
#include <QTabWidget>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>

// The Models dialog against the scripted OpenAI-compatible server (a stand-in for a real model server).
class TestModelsDialog : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;

    // The window's context over this llm.json: the dialog reads and writes it through the engine (issue 32).
    std::unique_ptr<AppContext> contextFor(const QString &llm) const
    {
        Engine::Settings s;
        s.llmConfig = llm;
        s.workspaceDb = m_dir.filePath(QStringLiteral("workspace.sqlite"));
        s.memoryDb = m_dir.filePath(QStringLiteral("memory.sqlite"));
        s.hostsFile = m_dir.filePath(QStringLiteral("hosts.json"));
        return std::make_unique<AppContext>(s);
    }
    static void loaded(ModelsDialog &dialog) { QTRY_VERIFY(dialog.isLoaded()); }
    static void waitSaved(ModelsDialog &dialog) { QTRY_VERIFY(!dialog.isSaving()); }

private Q_SLOTS:
    void initTestCase() { qputenv("ACCELOPT_NO_KEYCHAIN", "1"); }

    void addTestAndSaveAnEndpoint()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::completion(QStringLiteral("pong"));
        });
        qputenv("ACCELOPT_TEST_LLM_KEY", "sk-test-secret-1234");

        const QString path = m_dir.filePath(QStringLiteral("llm.json"));
        const auto context = contextFor(path);

        ModelsDialog dialog(context.get());

        loaded(dialog);
        dialog.resize(900, 600);
        dialog.show();
        dialog.addEndpoint(QStringLiteral("vllm"));
        auto *base = dialog.findChild<QLineEdit *>(QStringLiteral("baseUrlEdit"));
        auto *model = dialog.findChild<QLineEdit *>(QStringLiteral("modelEdit"));
        auto *keyEnv = dialog.findChild<QLineEdit *>(QStringLiteral("keyEnvEdit"));
        QVERIFY(base && model && keyEnv);
        base->setText(server.baseUrl());
        model->setText(QStringLiteral("scripted-model"));
        keyEnv->setText(QStringLiteral("ACCELOPT_TEST_LLM_KEY"));
        QCOMPARE(dialog.findChild<QListWidget *>(QStringLiteral("endpointList"))->count(),
                 dialog.config().endpoints.size());

        // Issue 32: the key lookup and the call run on the engine's thread (the answer is emitted there); the
        // dialog holds no client or key store of its own.
        std::atomic<QThread *> testedOn = nullptr;
        QObject::connect(context->engine()->settingsFiles(), &SettingsService::endpointTested,
                         [&testedOn](quint64, bool, const QString &, const ChatReply &) {
                             testedOn = QThread::currentThread();
                         });
        QSignalSpy done(&dialog, &ModelsDialog::testFinished);
        dialog.testCurrentEndpoint();
        QVERIFY(done.wait(20000));
        QVERIFY2(done.first().first().toBool(), qPrintable(dialog.testResult()));
        QCOMPARE(testedOn.load(), context->engine()->thread());
        QVERIFY(testedOn.load() != QThread::currentThread());
        QVERIFY(dialog.findChildren<ChatClient *>().isEmpty());
        QVERIFY(dialog.findChildren<ApiKeyStore *>().isEmpty());
        QVERIFY2(dialog.testResult().contains(QStringLiteral("pong")), qPrintable(dialog.testResult()));
        QCOMPARE(server.requestCount(), 1);
        QCOMPARE(server.requests().first().json.value(QStringLiteral("model")).toString(),
                 QStringLiteral("scripted-model"));
        dialog.grab().save(
            QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(QStringLiteral("models-dialog.png")));

        QVERIFY(dialog.save());

        waitSaved(dialog);
        QFile saved(path);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray text = saved.readAll();
        QVERIFY(text.contains("scripted-model"));
        QVERIFY(!text.contains("sk-test-secret-1234")); // the key itself is never written
    }

    // An endpoint allowed to send its key over plain http:// to another machine is warned about; one that is
    // not is said to be refused; loopback and https say nothing (issue 33).
    void warnsAboutAKeyOverPlainHttp()
    {
        const QString path = m_dir.filePath(QStringLiteral("plain-http.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // Single quotes for readability, made JSON's.
        f.write(QByteArray("{'version': 1, 'endpoints': ["
                           "{'name': 'trusted', 'base_url': 'http://models.invalid:8000/v1', 'model': 'm', "
                           "'key_source': 'env', 'key_env': 'K', 'allow_plain_http_key': true}, "
                           "{'name': 'refused', 'base_url': 'http://models.invalid:8000/v1', 'model': 'm', "
                           "'key_source': 'env', 'key_env': 'K'}]}")
                    .replace('\'', '"'));
        f.close();
        const QString warning = QStringLiteral(
            "Warning: endpoint 'trusted' sends its API key unencrypted over plain http:// to models.invalid "
            "(\"allow_plain_http_key\" is set in llm.json): anyone on the network path can read it. Use "
            "https:// "
            "unless the network to models.invalid is trusted.");
        const auto context = contextFor(path);

        ModelsDialog dialog(context.get());

        loaded(dialog);
        dialog.show();
        QVERIFY2(dialog.problem().contains(warning), qPrintable(dialog.problem()));
        QCOMPARE(dialog.plainHttpWarning(), warning);
        auto *list = dialog.findChild<QListWidget *>(QStringLiteral("endpointList"));
        list->setCurrentRow(1);
        QVERIFY2(
            dialog.plainHttpWarning().startsWith(QStringLiteral(
                "Calls to 'refused' are refused: its API key would travel unencrypted over plain http:// to "
                "models.invalid, which is not this machine.")),
            qPrintable(dialog.plainHttpWarning()));
        auto *base = dialog.findChild<QLineEdit *>(QStringLiteral("baseUrlEdit"));
        base->setText(QStringLiteral("https://models.invalid/v1"));
        QVERIFY(dialog.plainHttpWarning().isEmpty());
        base->setText(QStringLiteral("http://127.0.0.1:8000/v1"));
        QVERIFY(dialog.plainHttpWarning().isEmpty());
        auto *keySource = dialog.findChild<QComboBox *>(QStringLiteral("keySourceCombo"));
        base->setText(QStringLiteral("http://gpu-box:8000/v1"));
        QVERIFY(!dialog.plainHttpWarning().isEmpty());
        keySource->setCurrentIndex(keySource->findData(QStringLiteral("none"))); // no key, nothing to leak
        QVERIFY(dialog.plainHttpWarning().isEmpty());
        // Saving keeps the allowance: the dialog has no control for it, and must not drop it.
        QVERIFY(dialog.save());
        waitSaved(dialog);
        QString error;
        const auto saved = LlmConfig::load(path, &error);
        QVERIFY2(saved, qPrintable(error));
        QVERIFY(saved->endpoint(QStringLiteral("trusted"))->allowPlainHttpKey);
        QVERIFY(!saved->endpoint(QStringLiteral("refused"))->allowPlainHttpKey);
    }

    static void write(const QString &path, QByteArray json)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(json.replace('\'', '"')); // single quotes for readability, made JSON's
    }
    static QStringList items(const QComboBox *combo)
    {
        QStringList out;
        for (int i = 0; i < combo->count(); ++i)
            out << combo->itemText(i);
        return out;
    }
    // The Roles tab's row of a role (the first, when it has an ensemble).
    static int roleRow(const QTableWidget *roles, const QString &role)
    {
        for (int r = 0; r < roles->rowCount(); ++r)
            if (roles->item(r, 0)->text() == role)
                return r;
        return -1;
    }

    // Issue 32: one endpoint serves several models, and the Roles tab chooses each role's endpoint and model
    // from those that exist (combo boxes, not free text); the search's clients then ask for that model.
    void rolesChooseAnEndpointsModelFromLists()
    {
        const QString path = m_dir.filePath(QStringLiteral("several-models.json"));
        write(path, "{'version': 1, 'endpoints': ["
                    "{'name': 'box', 'base_url': 'http://127.0.0.1:8000/v1', 'model': 'big', "
                    "'models': ['small', 'coder']}, "
                    "{'name': 'other', 'base_url': 'http://127.0.0.1:8001/v1', 'model': 'm'}], "
                    "'roles': {'planner': [{'endpoint': 'box', 'model': 'small', 'weight': 1}], "
                    "'executor': [{'endpoint': 'box', 'weight': 1}]}}");
        const auto context = contextFor(path);

        ModelsDialog dialog(context.get());

        loaded(dialog);
        dialog.resize(900, 600);
        dialog.show();
        auto *roles = dialog.findChild<QTableWidget *>(QStringLiteral("rolesTable"));
        QVERIFY(roles);
        const int planner = roleRow(roles, QStringLiteral("planner"));
        const int fixer = roleRow(roles, QStringLiteral("fixer"));
        QVERIFY(planner >= 0 && fixer >= 0);
        auto combo = [roles](int row, int column) { return qobject_cast<QComboBox *>(roles->cellWidget(row, column)); };
        QVERIFY2(combo(planner, 1) && combo(planner, 2), "a role's endpoint and model are chosen from lists");
        QCOMPARE(items(combo(planner, 1)), (QStringList{QStringLiteral("(none)"), QStringLiteral("box"),
                                                         QStringLiteral("other")}));
        QCOMPARE(combo(planner, 1)->currentText(), QStringLiteral("box"));
        QCOMPARE(items(combo(planner, 2)), (QStringList{QStringLiteral("big (default)"), QStringLiteral("small"),
                                                         QStringLiteral("coder")}));
        QCOMPARE(combo(planner, 2)->currentText(), QStringLiteral("small"));
        QCOMPARE(combo(fixer, 1)->currentText(), QStringLiteral("(none)")); // unassigned, and still listed
        QVERIFY(!combo(fixer, 2)->isEnabled());
        // The fixer takes the endpoint's coder model; its list follows the endpoint chosen.
        combo(fixer, 1)->setCurrentIndex(combo(fixer, 1)->findData(QStringLiteral("box")));
        QCOMPARE(items(combo(fixer, 2)).size(), 3);
        combo(fixer, 2)->setCurrentIndex(combo(fixer, 2)->findData(QStringLiteral("coder")));
        auto *tabs = dialog.findChild<QTabWidget *>(QStringLiteral("tabs"));
        tabs->setCurrentIndex(1);
        dialog.grab().save(
            QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(QStringLiteral("models-dialog-roles.png")));
        QVERIFY2(dialog.save(), qPrintable(dialog.problem()));
        waitSaved(dialog);

        QString error;
        const auto saved = LlmConfig::load(path, &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->endpoint(QStringLiteral("box"))->models,
                 (QStringList{QStringLiteral("small"), QStringLiteral("coder")}));
        QCOMPARE(saved->roster.members(AgentRole::Planner).first().model, QStringLiteral("small"));
        QCOMPARE(saved->roster.members(AgentRole::Executor).first().model, QString()); // the default
        QCOMPARE(saved->roster.members(AgentRole::Fixer).first().model, QStringLiteral("coder"));
        // One endpoint, three models: the search asks each role's own.
        AgentClients clients(*saved);
        QCOMPARE(clients.pick(AgentRole::Planner, QStringLiteral("k"))->endpoint().model, QStringLiteral("small"));
        QCOMPARE(clients.pick(AgentRole::Executor, QStringLiteral("k"))->endpoint().model, QStringLiteral("big"));
        QCOMPARE(clients.pick(AgentRole::Fixer, QStringLiteral("k"))->endpoint().model, QStringLiteral("coder"));
        QCOMPARE(clients.endpointsInUse().size(), 1); // one key to find, for all three
    }

    // A role naming an endpoint or a model that does not exist (an older or hand-edited file) is shown as
    // such and not saved until it is chosen again.
    void aRoleOnAMissingModelIsRefused()
    {
        const QString path = m_dir.filePath(QStringLiteral("missing-model.json"));
        write(path, "{'version': 1, 'endpoints': [{'name': 'box', 'base_url': 'http://127.0.0.1:8000/v1', "
                    "'model': 'big'}], 'roles': {'planner': [{'endpoint': 'box', 'model': 'typo'}], "
                    "'executor': [{'endpoint': 'gone'}]}}");
        const auto context = contextFor(path);

        ModelsDialog dialog(context.get());

        loaded(dialog);
        auto *roles = dialog.findChild<QTableWidget *>(QStringLiteral("rolesTable"));
        const int planner = roleRow(roles, QStringLiteral("planner"));
        const int executor = roleRow(roles, QStringLiteral("executor"));
        auto combo = [roles](int row, int column) { return qobject_cast<QComboBox *>(roles->cellWidget(row, column)); };
        QCOMPARE(combo(planner, 2)->currentText(), QStringLiteral("typo (not served)"));
        QCOMPARE(combo(executor, 1)->currentText(), QStringLiteral("gone (does not exist)"));
        QVERIFY(!dialog.save());
        QVERIFY2(dialog.problem().contains(QStringLiteral("'gone', which does not exist")) ||
                     dialog.problem().contains(QStringLiteral("'typo'")),
                 qPrintable(dialog.problem()));
        combo(executor, 1)->setCurrentIndex(combo(executor, 1)->findData(QStringLiteral("box")));
        QVERIFY(!dialog.save());
        QVERIFY2(dialog.problem().contains(QStringLiteral("'typo', which endpoint 'box' does not list")),
                 qPrintable(dialog.problem()));
        combo(planner, 2)->setCurrentIndex(0);
        QVERIFY2(dialog.save(), qPrintable(dialog.problem()));
        waitSaved(dialog);
    }

    // Issue 32: the dialog edits the llm.json its window's engine runs on, through that engine, never a default
    // one beside it; a save is announced so the views that show the models read it again.
    void saveGoesThroughTheEngineToItsFile()
    {
        const QString elsewhere = m_dir.filePath(QStringLiteral("default-llm.json"));
        qputenv("ACCELOPT_LLM_CONFIG", elsewhere.toUtf8());
        const QString enginesFile = m_dir.filePath(QStringLiteral("engines-llm.json"));
        const auto context = contextFor(enginesFile);
        QSignalSpy changed(context.get(), &AppContext::llmConfigChanged);
        ModelsDialog dialog(context.get());
        QVERIFY(!dialog.isLoaded()); // the engine answers on its own thread
        loaded(dialog);
        dialog.addEndpoint(QStringLiteral("openai-compatible"));
        dialog.findChild<QLineEdit *>(QStringLiteral("modelEdit"))->setText(QStringLiteral("through-engine"));
        QVERIFY(dialog.save());
        QVERIFY(dialog.isSaving());
        waitSaved(dialog);
        QString error;
        const auto saved = LlmConfig::load(enginesFile, &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->endpoints.last().model, QStringLiteral("through-engine"));
        QVERIFY(!QFile::exists(elsewhere));
        QTRY_COMPARE(changed.size(), 1);
        qunsetenv("ACCELOPT_LLM_CONFIG");
    }

    // A generic preset for any OpenAI-compatible server.
    void thereIsAnOpenAiCompatiblePreset()
    {
        const EndpointPreset *generic = EndpointPresets::find(QStringLiteral("openai-compatible"));
        QVERIFY(generic);
        QCOMPARE(generic->label, QStringLiteral("OpenAI-compatible server"));
        const auto context = contextFor(m_dir.filePath(QStringLiteral("generic.json")));

        ModelsDialog dialog(context.get());

        loaded(dialog);
        dialog.addEndpoint(QStringLiteral("openai-compatible"));
        QCOMPARE(dialog.config().endpoints.last().name, QStringLiteral("openai-compatible"));
    }

    // Issue 32: a key typed once in the dialog is used for the endpoint, never written to llm.json; with no
    // keychain (ACCELOPT_NO_KEYCHAIN here, no Secret Service on a headless machine) it is kept for this
    // session only, and the search's own key lookup (another ApiKeyStore, as on the engine's thread) finds it.
    void aTypedKeyIsKeptForTheSessionAndNeverWritten()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        const QByteArray secret = "sk-typed-once-5678";
        server.setHandler([secret](const ScriptedLlmServer::Request &r) {
            if (r.headers.value("authorization") != "Bearer " + secret)
                return ScriptedLlmServer::error(401, "bad key");
            return ScriptedLlmServer::completion(QStringLiteral("ready"));
        });
        const QString path = m_dir.filePath(QStringLiteral("typed-key.json"));
        const auto context = contextFor(path);

        ModelsDialog dialog(context.get());

        loaded(dialog);
        dialog.show();
        dialog.addEndpoint(QStringLiteral("openai-compatible"));
        dialog.findChild<QLineEdit *>(QStringLiteral("baseUrlEdit"))->setText(server.baseUrl());
        dialog.findChild<QLineEdit *>(QStringLiteral("modelEdit"))->setText(QStringLiteral("scripted-model"));
        auto *key = dialog.findChild<QLineEdit *>(QStringLiteral("keyEdit"));
        QVERIFY(key);
        QCOMPARE(key->echoMode(), QLineEdit::Password);
        QTest::keyClicks(key, QString::fromLatin1(secret));
        std::atomic<QThread *> keptOn = nullptr;
        QObject::connect(context->engine()->settingsFiles(), &SettingsService::keyKept,
                         [&keptOn](quint64, bool, const QString &) { keptOn = QThread::currentThread(); });
        QSignalSpy kept(&dialog, &ModelsDialog::keyKept);
        QVERIFY(dialog.save()); // OK with a typed key keeps it
        waitSaved(dialog);
        QVERIFY(kept.count() == 1 || kept.wait(10000));
        QVERIFY2(kept.first().first().toBool(), qPrintable(kept.first().at(1).toString()));
        QVERIFY2(kept.first().at(1).toString().contains(QStringLiteral("for this session only")),
                 qPrintable(kept.first().at(1).toString()));
        QVERIFY(key->text().isEmpty());
        QCOMPARE(keptOn.load(), context->engine()->thread()); // the keychain is asked on the engine's thread

        QFile saved(path);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray text = saved.readAll();
        QVERIFY2(!text.contains(secret), text.constData());
        QVERIFY(!text.contains("api_key"));
        QVERIFY(text.contains("\"key_source\": \"keychain\""));

        QSignalSpy tested(&dialog, &ModelsDialog::testFinished);
        dialog.testCurrentEndpoint();
        QVERIFY(tested.wait(20000));
        QVERIFY2(tested.first().first().toBool(), qPrintable(dialog.testResult()));
        QVERIFY(!dialog.testResult().contains(QString::fromLatin1(secret)));

        QString error;
        const auto config = LlmConfig::load(path, &error);
        QVERIFY2(config, qPrintable(error));
        ApiKeyStore engineSide;
        std::optional<ApiKeyStore::Lookup> found;
        engineSide.lookup(config->endpoints.last(), [&found](const ApiKeyStore::Lookup &l) { found = l; });
        QVERIFY(QTest::qWaitFor([&found] { return found.has_value(); }, 10000));
        QVERIFY2(found->ok, qPrintable(found->message));
        QCOMPARE(found->source, QStringLiteral("session"));
        QCOMPARE(found->key, QString::fromLatin1(secret));

        // A key typed for one endpoint and left by choosing another is kept for the one it was typed for.
        dialog.addEndpoint(QStringLiteral("openai-compatible"));
        QTest::keyClicks(key, QStringLiteral("sk-second-endpoint"));
        QSignalSpy keptOnLeaving(&dialog, &ModelsDialog::keyKept);
        dialog.findChild<QListWidget *>(QStringLiteral("endpointList"))->setCurrentRow(0);
        QVERIFY(keptOnLeaving.count() == 1 || keptOnLeaving.wait(10000));
        QVERIFY(key->text().isEmpty());
        QCOMPARE(ApiKeyStore::sessionKey(dialog.config().endpoints.at(1)), QStringLiteral("sk-second-endpoint"));
        QCOMPARE(ApiKeyStore::sessionKey(dialog.config().endpoints.at(0)), QString::fromLatin1(secret));
        ApiKeyStore::forgetSessionKeys();
    }

    // Issue 32: on a machine with no Secret Service (no D-Bus session here at all), keeping a typed key fails
    // gracefully: the keychain's error is said, the key is kept for this session, and a lookup finds it there.
    void withoutAKeychainATypedKeyLastsTheSession()
    {
        qunsetenv("ACCELOPT_NO_KEYCHAIN");
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/accelopt-test-bus");
        Endpoint e;
        e.name = QStringLiteral("no-keychain");
        e.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
        e.model = QStringLiteral("m");
        e.keySource = Endpoint::KeySource::Keychain;
        ApiKeyStore keys;
        std::optional<std::pair<bool, QString>> stored;
        keys.store(e, QStringLiteral("sk-no-keychain-1"),
                   [&stored](bool ok, const QString &message) { stored = std::make_pair(ok, message); });
        QVERIFY(QTest::qWaitFor([&stored] { return stored.has_value(); }, 15000));
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        QVERIFY2(stored->first, qPrintable(stored->second));
        QVERIFY2(stored->second.contains(QStringLiteral("for this session only")), qPrintable(stored->second));
        QVERIFY(!stored->second.contains(QStringLiteral("sk-no-keychain-1")));
        std::optional<ApiKeyStore::Lookup> found;
        keys.lookup(e, [&found](const ApiKeyStore::Lookup &l) { found = l; });
        QVERIFY(QTest::qWaitFor([&found] { return found.has_value(); }, 15000));
        QVERIFY2(found->ok, qPrintable(found->message));
        QCOMPARE(found->source, QStringLiteral("session"));
        QCOMPARE(found->key, QStringLiteral("sk-no-keychain-1"));
        ApiKeyStore::forgetSessionKeys();
    }
};

QTEST_MAIN(TestModelsDialog)
#include "tst_modelsdialog.moc"
