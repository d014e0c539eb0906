#include "engine/engine.h"
#include "engine/settingsservice.h"
#include "hosts/hostregistry.h"
#include "llm/llmconfig.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// The engine's desk for hosts.json and llm.json (issue 32): the dialogs' loads and saves reach the files the
// engine itself runs on, never a default beside them; bad input is refused with a reason and an unreadable
// file is never overwritten by a load.
class TestSettingsService : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    Engine::Settings settings(const QString &name) const
    {
        Engine::Settings s;
        s.workspaceDb = m_dir.filePath(name + QStringLiteral("-workspace.sqlite"));
        s.memoryDb = m_dir.filePath(name + QStringLiteral("-memory.sqlite"));
        s.llmConfig = m_dir.filePath(name + QStringLiteral("-llm.json"));
        s.hostsFile = m_dir.filePath(name + QStringLiteral("-hosts.json"));
        return s;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Were a default path used anywhere, it would land here and fail the checks below.
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("default-hosts.json")).toUtf8());
        qputenv("ACCELOPT_LLM_CONFIG", m_dir.filePath(QStringLiteral("default-llm.json")).toUtf8());
    }

    void hostsAreSavedWhereTheEngineReadsThem()
    {
        const Engine::Settings s = settings(QStringLiteral("hosts"));
        Engine engine(s);
        SettingsService *files = engine.settingsFiles();
        QCOMPARE(files->hostsFile(), s.hostsFile);
        QSignalSpy loaded(files, &SettingsService::hostsLoaded);
        QSignalSpy saved(files, &SettingsService::hostsSaved);
        files->loadHosts(7);
        QCOMPARE(loaded.size(), 1);
        QCOMPARE(loaded.first().at(0).toULongLong(), quint64(7));
        QCOMPARE(loaded.first().at(1).value<QList<HostConfig>>().size(), 1); // the built-in host
        QVERIFY(loaded.first().at(2).toString().isEmpty());

        HostConfig box;
        box.name = QStringLiteral("trn-box");
        box.kind = HostConfig::Kind::Ssh;
        box.sshHost = QStringLiteral("trn-box.example");
        files->saveHosts(8, {box});
        QCOMPARE(saved.size(), 1);
        QCOMPARE(saved.first().at(1).toInt(), 1);
        QVERIFY2(saved.first().at(2).toString().isEmpty(), qPrintable(saved.first().at(2).toString()));
        HostRegistry registry(s.hostsFile);
        QString error;
        QVERIFY2(registry.load(error), qPrintable(error));
        HostConfig read;
        QVERIFY(registry.find(QStringLiteral("trn-box"), read));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("default-hosts.json"))));
        // The engine's own pools find the host just saved.
        QSignalSpy listed(&engine, &Engine::hostsListed);
        engine.listHosts(9);
        QCOMPARE(listed.first().at(1).value<QList<HostConfig>>().size(), 2);

        // Two hosts of one name, or one named "local": refused, the file untouched.
        files->saveHosts(10, {box, box});
        QVERIFY(saved.last().at(2).toString().contains(QStringLiteral("unique")));
        HostConfig local = box;
        local.name = QStringLiteral("local");
        files->saveHosts(11, {local});
        QVERIFY(!saved.last().at(2).toString().isEmpty());
        QVERIFY(registry.load(error));
        QCOMPARE(registry.hosts().size(), 2);
    }

    void anUnreadableHostsFileIsReportedAndKept()
    {
        const Engine::Settings s = settings(QStringLiteral("corrupt"));
        QFile f(s.hostsFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{ oops");
        f.close();
        Engine engine(s);
        QSignalSpy loaded(engine.settingsFiles(), &SettingsService::hostsLoaded);
        engine.settingsFiles()->loadHosts(1);
        QVERIFY(loaded.first().at(2).toString().contains(QStringLiteral("not valid JSON")));
        QCOMPARE(loaded.first().at(1).value<QList<HostConfig>>().size(), 1);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("{ oops"));
    }

    void llmSettingsAreSavedWhereTheEngineReadsThem()
    {
        const Engine::Settings s = settings(QStringLiteral("llm"));
        Engine engine(s);
        SettingsService *files = engine.settingsFiles();
        QSignalSpy loaded(files, &SettingsService::llmConfigLoaded);
        QSignalSpy saved(files, &SettingsService::llmConfigSaved);
        files->loadLlmConfig(1);
        QVERIFY(loaded.first().at(1).value<std::optional<LlmConfig>>()); // no file: an empty configuration
        LlmConfig config;
        Endpoint e;
        e.name = QStringLiteral("lab-vllm");
        e.baseUrl = QStringLiteral("http://127.0.0.1:8000/v1");
        e.model = QStringLiteral("m");
        config.endpoints << e;
        files->saveLlmConfig(2, config);
        QVERIFY2(saved.first().at(1).toString().isEmpty(), qPrintable(saved.first().at(1).toString()));
        QString error;
        const auto back = LlmConfig::load(s.llmConfig, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->endpoints.first().name, QStringLiteral("lab-vllm"));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("default-llm.json"))));
        files->loadLlmConfig(3);
        QCOMPARE(loaded.last().at(1).value<std::optional<LlmConfig>>()->endpoints.size(), 1);

        // A broken file is named on load, and a save into a folder that cannot be made says why.
        QFile broken(s.llmConfig);
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("{ not json");
        broken.close();
        files->loadLlmConfig(4);
        QVERIFY(!loaded.last().at(1).value<std::optional<LlmConfig>>());
        QVERIFY(loaded.last().at(2).toString().contains(QStringLiteral("not valid JSON")));
        QFile blocker(m_dir.filePath(QStringLiteral("a-file")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        Engine::Settings nowhere = s;
        nowhere.llmConfig = m_dir.filePath(QStringLiteral("a-file/llm.json"));
        Engine other(nowhere);
        QSignalSpy refused(other.settingsFiles(), &SettingsService::llmConfigSaved);
        other.settingsFiles()->saveLlmConfig(5, config);
        QVERIFY(!refused.first().at(1).toString().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSettingsService)
#include "tst_settingsservice.moc"
