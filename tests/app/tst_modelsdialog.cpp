#include "isolatedsettings.h"
#include "llm/llmconfig.h"
#include "modelsdialog.h"
#include "scriptedllmserver.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// The Models dialog against the scripted OpenAI-compatible server (a stand-in for a real model server).
class TestModelsDialog : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;

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
        ModelsDialog dialog(path);
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

        QSignalSpy done(&dialog, &ModelsDialog::testFinished);
        dialog.testCurrentEndpoint();
        QVERIFY(done.wait(20000));
        QVERIFY2(done.first().first().toBool(), qPrintable(dialog.testResult()));
        QVERIFY2(dialog.testResult().contains(QStringLiteral("pong")), qPrintable(dialog.testResult()));
        QCOMPARE(server.requestCount(), 1);
        QCOMPARE(server.requests().first().json.value(QStringLiteral("model")).toString(),
                 QStringLiteral("scripted-model"));
        dialog.grab().save(
            QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(QStringLiteral("models-dialog.png")));

        QVERIFY(dialog.save());
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
        ModelsDialog dialog(path);
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
        QString error;
        const auto saved = LlmConfig::load(path, &error);
        QVERIFY2(saved, qPrintable(error));
        QVERIFY(saved->endpoint(QStringLiteral("trusted"))->allowPlainHttpKey);
        QVERIFY(!saved->endpoint(QStringLiteral("refused"))->allowPlainHttpKey);
    }
};

QTEST_MAIN(TestModelsDialog)
#include "tst_modelsdialog.moc"
