#include "llm/llmconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

// llm.json as a person edits it: each bad file is refused with its place named, never read as defaults.
class TestLlmConfig : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    // JSON written with single quotes, so the cases read as a person would type them.
    static QByteArray json(const char *text) { return QByteArray(text).replace('\'', '"'); }

    static QByteArray endpoint(const char *extra)
    {
        return json("{'version': 1, 'endpoints': [{'name': 'vllm', 'base_url': 'http://localhost:8000/v1', "
                    "'model': 'm'") +
               json(extra) + "}]}";
    }

private Q_SLOTS:
    void badFileIsRefused_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("says");
        QTest::newRow("array") << QByteArray("[]") << "must hold an object";
        QTest::newRow("string") << QByteArray("\"x\"") << "not valid JSON";
        QTest::newRow("truncated") << json("{'version': 1, 'endpoints': [") << "not valid JSON";
        QTest::newRow("endpoints object") << json("{'version': 1, 'endpoints': {'a': 1}}")
                                          << "'endpoints' must be an array";
        QTest::newRow("endpoint number") << json("{'version': 1, 'endpoints': [3]}") << "endpoint 1 must be an object";
        QTest::newRow("timeout huge") << endpoint(", 'timeout_ms': 1e99") << "endpoint 'vllm': 'timeout_ms' must be";
        QTest::newRow("timeout string") << endpoint(", 'timeout_ms': '60s'") << "'timeout_ms' must be";
        QTest::newRow("timeout fraction") << endpoint(", 'timeout_ms': 1500.5") << "'timeout_ms' must be";
        QTest::newRow("concurrency huge") << endpoint(", 'concurrency': 1e12") << "'concurrency' must be a whole number from 1 to 256";
        QTest::newRow("concurrency zero") << endpoint(", 'concurrency': 0") << "'concurrency' must be";
        QTest::newRow("temperature") << endpoint(", 'temperature': 7") << "'temperature' must be a number from 0 to 2";
        QTest::newRow("top_p") << endpoint(", 'top_p': -0.5") << "'top_p' must be";
        QTest::newRow("max_tokens") << endpoint(", 'max_tokens': 'lots'") << "'max_tokens' must be";
        QTest::newRow("model number") << endpoint(", 'extra': 1, 'reasoning_effort': 3") << "'reasoning_effort' must be a string";
        QTest::newRow("version 9") << json("{'version': 9}") << "unsupported LLM settings version 9";
        // Read as a default without a word before: no key sent, a bearer token, $0 or negative costs, version 0.
        QTest::newRow("key_source typo") << endpoint(", 'key_source': 'envv'") << "'key_source' must be one of none, env, keychain";
        QTest::newRow("auth typo") << endpoint(", 'auth': 'headr'") << "'auth' must be one of bearer, header";
        QTest::newRow("price string") << json("{'version': 1, 'prices': {'m': {'input_per_mtok': '3'}}}")
                                      << "the price of 'm': 'input_per_mtok' must be a number";
        QTest::newRow("price negative") << json("{'version': 1, 'prices': {'m': {'output_per_mtok': -1}}}")
                                        << "'output_per_mtok' must be a number of dollars, 0 or more";
        QTest::newRow("version string") << json("{'version': '1'}") << "the version must be a number";
        // llm.json never holds keys: one put there is refused, naming where keys go (issue 33).
        QTest::newRow("api_key")
            << endpoint(", 'api_key': 'sk-llmjson-SECRET'")
            << "endpoint 'vllm' has a field 'api_key', but llm.json never holds API keys: "
               "remove the field, then keep the key in the system keychain (\"key_source\": "
               "\"keychain\"; Tools > Models…, the key field) or in an environment variable "
               "(\"key_source\": \"env\" and \"key_env\": the variable's name)";
        QTest::newRow("apiKey") << endpoint(", 'apiKey': 'sk-llmjson-SECRET'") << "has a field 'apiKey'";
        QTest::newRow("key") << endpoint(", 'key_source': 'env', 'key': 'sk-llmjson-SECRET'")
                             << "has a field 'key', but llm.json never holds API keys";
        QTest::newRow("api_key at the top")
            << json("{'version': 1, 'api_key': 'sk-llmjson-SECRET'}")
            << "there is a field 'api_key', but llm.json never holds API keys";
        QTest::newRow("allow_plain_http_key string")
            << endpoint(", 'allow_plain_http_key': 'yes'")
            << "endpoint 'vllm': 'allow_plain_http_key' must be true or false, not \"yes\"";
        QTest::newRow("send_seed number")
            << endpoint(", 'send_seed': 0") << "'send_seed' must be true or false";
    }

    void badFileIsRefused()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, says);
        const QString path = m_dir.filePath(QStringLiteral("llm-%1.json").arg(QTest::currentDataTag()));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        QString error;
        QVERIFY(!LlmConfig::load(path, &error));
        QVERIFY2(error.contains(says), qPrintable(error));
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY2(!error.contains(QStringLiteral("SECRET")), qPrintable(error)); // a key is never repeated
    }

    static int modeOf(const QString &path)
    {
        struct stat st = {};
        return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
    }
    static void write(const QString &path, int mode)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(json("{'version': 1}"));
        f.close();
        QVERIFY(::chmod(QFile::encodeName(path).constData(), mode_t(mode)) == 0);
    }

    // llm.json was readable by every local user (issue 33): the file is made 0600 and AccelOpt's own folder
    // 0700 when they are read, and the user is told what was tightened.
    void aFileOpenToOthersIsTightenedWhenRead()
    {
        const QString folder = m_dir.filePath(QStringLiteral("config/AccelOpt"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0755) == 0);
        const QString path = folder + QStringLiteral("/llm.json");
        write(path, 0644);
        QString error;
        QStringList notes;
        QVERIFY2(LlmConfig::load(path, &error, &notes), qPrintable(error));
        QCOMPARE(modeOf(path), 0600);
        QCOMPARE(modeOf(folder), 0700);
        QCOMPARE(
            notes,
            QStringList(
                {QStringLiteral("The LLM settings folder %1 was open to other users (mode 0755); it is "
                                "now 0700, for you only")
                     .arg(folder),
                 QStringLiteral("The LLM settings file %1 was open to other users (mode 0644); it is now "
                                "0600, for you only")
                     .arg(path)}));
        notes.clear();
        QVERIFY(LlmConfig::load(path, &error, &notes));
        QVERIFY(notes.isEmpty()); // said once: it is private now

        // A broken file is tightened too: its contents are as private as a good one's.
        write(path, 0664);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{");
        f.close();
        QVERIFY(!LlmConfig::load(path, &error, &notes));
        QCOMPARE(modeOf(path), 0600);
        QCOMPARE(notes.size(), 1);
    }

    void aFolderThatIsNotAccelOptsOwnIsLeftAsItIs()
    {
        // --config or $ACCELOPT_LLM_CONFIG may name a file in a project folder or /tmp: not ours to close.
        const QString folder = m_dir.filePath(QStringLiteral("project"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0755) == 0);
        const QString path = folder + QStringLiteral("/llm.json");
        write(path, 0640);
        QString error;
        QStringList notes;
        QVERIFY2(LlmConfig::load(path, &error, &notes), qPrintable(error));
        QCOMPARE(modeOf(path), 0600);
        QCOMPARE(modeOf(folder), 0755);
        QCOMPARE(notes.size(), 1);
        QVERIFY2(notes.first().contains(QStringLiteral("(mode 0640); it is now 0600")),
                 qPrintable(notes.first()));
    }

    void aFolderInTheFilesPlaceKeepsItsMode()
    {
        const QString path = m_dir.filePath(QStringLiteral("folder/llm.json"));
        QVERIFY(QDir().mkpath(path));
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0755) == 0);
        QString error;
        QStringList notes;
        QVERIFY(!LlmConfig::load(path, &error, &notes));
        QCOMPARE(modeOf(path), 0755);
        QVERIFY(notes.isEmpty());
    }

    void saveWritesPrivately()
    {
        LlmConfig config;
        const QString fresh = m_dir.filePath(QStringLiteral("new/place/llm.json")); // neither folder exists
        QString error;
        QVERIFY2(config.save(fresh, &error), qPrintable(error));
        QCOMPARE(modeOf(fresh), 0600);
        QCOMPARE(modeOf(QFileInfo(fresh).absolutePath()), 0700);
        const QString existing = m_dir.filePath(QStringLiteral("project/llm.json")); // 0644 before
        write(existing, 0644);
        QVERIFY2(config.save(existing, &error), qPrintable(error));
        QCOMPARE(modeOf(existing), 0600);
    }

    void goodEndpointLoads()
    {
        const QString path = m_dir.filePath(QStringLiteral("good.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(endpoint(", 'timeout_ms': 60000, 'concurrency': 8, 'temperature': 0.7"));
        f.close();
        QString error;
        const auto config = LlmConfig::load(path, &error);
        QVERIFY2(config, qPrintable(error));
        QCOMPARE(config->endpoints.size(), 1);
        QCOMPARE(config->endpoints.first().timeoutMs, 60000);
        QCOMPARE(config->endpoints.first().concurrency, 8);
    }
};

QTEST_GUILESS_MAIN(TestLlmConfig)
#include "tst_llmconfig.moc"
