#include "appcontext.h"
#include "engine/settingsservice.h"
#include "hosts/hostregistry.h"
#include "hosts/sshprompter.h"
#include "hostsdialog.h"
#include "hoststatuswidget.h"
#include "isolatedsettings.h"
#include "slurmfixture.h"
#include "sshdfixture.h"
#include "ui_hostsdialog.h"

#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>

class TestHostsDialog : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;

    QString hostsFile() const { return m_dir.filePath(QStringLiteral("hosts.json")); }
    // The window's context over this hosts file: the dialog reads and writes it through the engine (issue 32).
    std::unique_ptr<AppContext> contextFor(const QString &hosts) const
    {
        Engine::Settings s;
        s.hostsFile = hosts;
        s.workspaceDb = m_dir.filePath(QStringLiteral("workspace.sqlite"));
        s.memoryDb = m_dir.filePath(QStringLiteral("memory.sqlite"));
        s.llmConfig = m_dir.filePath(QStringLiteral("llm.json"));
        return std::make_unique<AppContext>(s);
    }
    static void loaded(HostsDialog &dialog) { QTRY_VERIFY(dialog.isLoaded()); }
    static void waitSaved(HostsDialog &dialog) { QTRY_VERIFY(!dialog.isSaving()); }

private Q_SLOTS:
    void addEditSaveAndReload()
    {
        const auto dialogContext = contextFor(hostsFile());
        HostsDialog dialog(dialogContext.get(), std::make_shared<SshPrompter>());
        loaded(dialog);
        auto *ui = dialog.ui();
        QCOMPARE(ui->hostList->count(), 1); // the built-in local host
        QVERIFY(!ui->removeButton->isEnabled());
        ui->addButton->click();
        QCOMPARE(ui->hostList->count(), 2);
        ui->nameEdit->setText(QStringLiteral("trn-box"));
        ui->sshHostEdit->setText(QStringLiteral("trn-box.example"));
        ui->userEdit->setText(QStringLiteral("ubuntu"));
        ui->slotsSpin->setValue(2);
        ui->backendCombo->setCurrentIndex(ui->backendCombo->findData(QStringLiteral("neuron")));
        ui->envEdit->setPlainText(QStringLiteral("NEURON_RT_LOG_LEVEL=ERROR"));
        QVERIFY(dialog.save());
        waitSaved(dialog);

        HostRegistry registry(hostsFile());
        QString error;
        QVERIFY2(registry.load(error), qPrintable(error));
        HostConfig saved;
        QVERIFY(registry.find(QStringLiteral("trn-box"), saved));
        QCOMPARE(saved.user, QStringLiteral("ubuntu"));
        QCOMPARE(saved.slotCount, 2);
        QCOMPARE(saved.backend, QStringLiteral("neuron"));
        QCOMPARE(saved.environment.value(QStringLiteral("NEURON_RT_LOG_LEVEL")), QStringLiteral("ERROR"));

        const auto againContext = contextFor(hostsFile());
        HostsDialog again(againContext.get(), std::make_shared<SshPrompter>());
        loaded(again);
        QCOMPARE(again.ui()->hostList->count(), 2);
        again.ui()->hostList->setCurrentRow(1);
        QCOMPARE(again.ui()->sshHostEdit->text(), QStringLiteral("trn-box.example"));
        again.ui()->removeButton->click();
        QVERIFY(again.save());
        waitSaved(again);
        QVERIFY(registry.load(error));
        QVERIFY(!registry.find(QStringLiteral("trn-box"), saved));
    }

    // Issue 32: the dialog edits the file its window's engine reads, through that engine: never a default one
    // beside it, and the engine's own list of hosts has the new one at once.
    void saveGoesThroughTheEngineToItsFile()
    {
        const QString elsewhere = m_dir.filePath(QStringLiteral("default-hosts.json"));
        qputenv("ACCELOPT_HOSTS_FILE", elsewhere.toUtf8());
        const QString enginesFile = m_dir.filePath(QStringLiteral("engines-hosts.json"));
        const auto context = contextFor(enginesFile);
        QSignalSpy listed(context.get(), &AppContext::hostsListed);
        QSignalSpy written(context.get(), &AppContext::hostsSaved);
        HostsDialog dialog(context.get(), std::make_shared<SshPrompter>());
        loaded(dialog);
        dialog.ui()->addButton->click();
        dialog.ui()->nameEdit->setText(QStringLiteral("through-engine"));
        dialog.ui()->sshHostEdit->setText(QStringLiteral("box.example"));
        QVERIFY(dialog.save());
        QVERIFY(dialog.isSaving());
        waitSaved(dialog);
        QCOMPARE(written.size(), 1);
        QVERIFY(written.first().at(2).toString().isEmpty());
        QVERIFY2(dialog.statusText().contains(enginesFile), qPrintable(dialog.statusText()));
        HostRegistry registry(enginesFile);
        QString error;
        QVERIFY2(registry.load(error), qPrintable(error));
        HostConfig found;
        QVERIFY(registry.find(QStringLiteral("through-engine"), found));
        QVERIFY(!QFile::exists(elsewhere));
        QTRY_VERIFY(!listed.isEmpty()); // the run targets are refreshed from the engine after the save
        bool offered = false;
        for (const HostConfig &host : listed.last().at(0).value<QList<HostConfig>>())
            offered = offered || host.name == QStringLiteral("through-engine");
        QVERIFY(offered);
        qunsetenv("ACCELOPT_HOSTS_FILE");
    }

    void badInputIsExplainedAndNotSaved()
    {
        const auto dialogContext = contextFor(hostsFile());
        HostsDialog dialog(dialogContext.get(), std::make_shared<SshPrompter>());
        loaded(dialog);
        dialog.ui()->addButton->click();
        dialog.ui()->nameEdit->setText(QStringLiteral("bad name!"));
        dialog.ui()->sshHostEdit->setText(QStringLiteral("x"));
        QVERIFY(!dialog.save());
        QVERIFY2(dialog.statusText().contains(QStringLiteral("host name")), qPrintable(dialog.statusText()));
        dialog.ui()->nameEdit->setText(QStringLiteral("ok-name"));
        dialog.ui()->envEdit->setPlainText(QStringLiteral("NOEQUALS"));
        QVERIFY(!dialog.save());
        QVERIFY2(dialog.statusText().contains(QStringLiteral("KEY=VALUE")), qPrintable(dialog.statusText()));
    }

    void corruptHostsFileIsNeverOverwritten()
    {
        const QString path = m_dir.filePath(QStringLiteral("corrupt.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{ oops");
        f.close();
        const auto dialogContext = contextFor(path);
        HostsDialog dialog(dialogContext.get(), std::make_shared<SshPrompter>());
        loaded(dialog);
        QVERIFY(dialog.statusText().contains(QStringLiteral("not valid JSON")));
        QVERIFY(!dialog.save());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("{ oops"));
    }

    void testConnectionOnTheLocalHost()
    {
        const auto dialogContext = contextFor(hostsFile());
        HostsDialog dialog(dialogContext.get(), std::make_shared<SshPrompter>());
        loaded(dialog);
        HostStatusWidget status;
        HostConfig remote;
        remote.name = QStringLiteral("trn");
        remote.kind = HostConfig::Kind::Ssh;
        status.setHosts({HostRegistry::builtinLocal(), remote});
        // Before anything ran: the local host starts on demand, so it is ready; a remote one is not
        // connected.
        QCOMPARE(status.stateOf(QStringLiteral("local")), Host::State::Ready);
        QCOMPARE(status.stateOf(QStringLiteral("trn")), Host::State::Offline);
        QVERIFY2(status.text().contains(QStringLiteral("trn <span style='color:#757575'>not connected")),
                 qPrintable(status.text()));
        connect(&dialog, &HostsDialog::hostStateChanged, &status, &HostStatusWidget::setState);
        // Issue 32: the probe runs on the engine's thread (the answer is emitted there), not the dialog's.
        std::atomic<QThread *> testedOn = nullptr;
        QObject::connect(
            dialogContext->engine()->settingsFiles(), &SettingsService::hostTested,
            [&testedOn](quint64, const HostProbe::Result &) { testedOn = QThread::currentThread(); });
        dialog.ui()->hostList->setCurrentRow(0);
        dialog.testConnection();
        QVERIFY(dialog.testRunning());
        QVERIFY(dialog.ui()->testButton->isEnabled() == false); // the dialog stays responsive meanwhile
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.testRunning(), 60000);
        QCOMPARE(testedOn.load(), dialogContext->engine()->thread());
        QVERIFY(testedOn.load() != QThread::currentThread());
        QVERIFY(dialog.findChildren<HostProbe *>().isEmpty());
        QVERIFY(dialog.findChildren<Host *>().isEmpty());
        QVERIFY2(dialog.statusText().contains(QStringLiteral("Connected")), qPrintable(dialog.statusText()));
        QVERIFY(dialog.statusText().contains(QStringLiteral("protocol 1")));
        QCOMPARE(status.stateOf(QStringLiteral("local")), Host::State::Ready);
        QVERIFY(status.text().contains(QStringLiteral("ready")));
    }

    void testConnectionOverSshShowsTheFingerprint()
    {
        SshdFixture sshd;
        QString error;
        if (!sshd.start(error))
            QSKIP(qPrintable(error));
        // Known hosts and ssh config of the test's own, never the user's: written into the hosts file
        // directly.
        QFile f(hostsFile());
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            QStringLiteral(
                R"({"version":1,"hosts":[{"name":"loop","kind":"ssh","ssh_host":"127.0.0.1","port":%1,)"
                R"("user":"%2","identity_file":"%3","known_hosts":"%4","ssh_config":"%5","deploy_root":"%6",)"
                R"("python":"/usr/bin/python3"}]})")
                .arg(sshd.port())
                .arg(SshdFixture::userName(), sshd.clientKey(), sshd.knownHosts(),
                     sshd.path(QStringLiteral("none")), sshd.path(QStringLiteral("remote")))
                .toUtf8());
        f.close();
        auto prompter = std::make_shared<SshPrompter>();
        prompter->setAcceptedFingerprints({sshd.hostKeyFingerprint()});
        const auto dialogContext = contextFor(hostsFile());
        HostsDialog dialog(dialogContext.get(), prompter);
        loaded(dialog);
        dialog.resize(820, 720);
        dialog.show();
        dialog.ui()->hostList->setCurrentRow(1);
        dialog.testConnection();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.testRunning(), 60000);
        QVERIFY2(dialog.statusText().contains(sshd.hostKeyFingerprint()), qPrintable(dialog.statusText()));
        QVERIFY(dialog.statusText().contains(QStringLiteral("files uploaded")));
        dialog.grab().save(
            QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(QStringLiteral("hosts-dialog.png")));
    }

    void addsAndTestsASlurmCluster()
    {
        SlurmFixture slurm;
        QString error;
        if (!slurm.start(error))
            QSKIP(qPrintable(error));
        const auto dialogContext = contextFor(hostsFile());
        HostsDialog dialog(dialogContext.get(), std::make_shared<SshPrompter>());
        loaded(dialog);
        dialog.resize(820, 720);
        dialog.show();
        auto *ui = dialog.ui();
        ui->addButton->click();
        ui->nameEdit->setText(QStringLiteral("cluster"));
        ui->kindCombo->setCurrentIndex(ui->kindCombo->findData(QStringLiteral("slurm")));
        QVERIFY(ui->partitionEdit->isEnabled() && ui->nodesSpin->isEnabled());
        QVERIFY(ui->sshHostEdit->isEnabled()); // the head node; empty here, where jobs are submitted
        ui->sshHostEdit->clear();
        ui->partitionEdit->setText(QLatin1String(SlurmFixture::partition));
        ui->timeEdit->setText(QStringLiteral("10"));
        ui->pythonEdit->setText(QStringLiteral("/usr/bin/python3"));
        QVERIFY(dialog.save());
        waitSaved(dialog);
        dialog.testConnection();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.testRunning(), 120000);
        // the allocation's nodes and sinfo's partitions, from the runner that ran as a step of the job
        QVERIFY2(dialog.statusText().contains(QStringLiteral("Connected")), qPrintable(dialog.statusText()));
        QVERIFY2(dialog.statusText().contains(QStringLiteral("on localhost; partitions: trn")),
                 qPrintable(dialog.statusText()));
        dialog.grab().save(
            QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(QStringLiteral("hosts-dialog-slurm.png")));
        QVERIFY2(slurm.waitForEmptyQueue(20000), qPrintable(slurm.queuedJobs().join(u' ')));
        HostRegistry registry(hostsFile());
        QVERIFY2(registry.load(error), qPrintable(error));
        HostConfig saved;
        QVERIFY(registry.find(QStringLiteral("cluster"), saved));
        QCOMPARE(saved.kind, HostConfig::Kind::Slurm);
        QCOMPARE(saved.timeLimit, QStringLiteral("10"));
    }
};

QTEST_MAIN(TestHostsDialog)
#include "tst_hostsdialog.moc"
