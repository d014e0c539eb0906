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
};

QTEST_MAIN(TestModelsDialog)
#include "tst_modelsdialog.moc"
