#include "appcontext.h"
#include "hosts/hostconfig.h"
#include "isolatedsettings.h"
#include "optimizedialog.h"
#include "ui_optimizedialog.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

// The Optimize dialog's "Confirm on hardware" (issue 34): off by default; it offers the Neuron hosts only, is
// only open to a search on a sim host (nkisim's numbers are what a device confirms), and what is chosen goes
// into the request's SearchConfig::confirmOn. A grab is kept in test-artifacts to look at.
class TestOptimizeDialog : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;

    std::unique_ptr<AppContext> context() const
    {
        Engine::Settings s;
        s.hostsFile = m_dir.filePath(QStringLiteral("hosts.json"));
        s.workspaceDb = m_dir.filePath(QStringLiteral("workspace.sqlite"));
        s.memoryDb = m_dir.filePath(QStringLiteral("memory.sqlite"));
        s.llmConfig = m_dir.filePath(QStringLiteral("llm.json"));
        return std::make_unique<AppContext>(s);
    }

    static QList<HostConfig> hosts()
    {
        HostConfig local;
        local.name = QStringLiteral("local");
        HostConfig trn;
        trn.name = QStringLiteral("trn-box");
        trn.backend = QStringLiteral("neuron");
        HostConfig other;
        other.name = QStringLiteral("sim-box");
        return {local, trn, other};
    }

private Q_SLOTS:
    void confirmOnHardwareOffersNeuronHostsOnly()
    {
        const auto ctx = context();
        OptimizeDialog dialog(ctx.get(), {QStringLiteral("silu"), QString(), QString()}, hosts(),
                              QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks"));
        auto *ui = dialog.ui();
        ui->hostCombo->setCurrentIndex(ui->hostCombo->findText(QStringLiteral("local")));
        QCOMPARE(ui->confirmCombo->count(), 2); // none, trn-box
        QCOMPARE(ui->confirmCombo->currentText(), QStringLiteral("none"));
        QCOMPARE(ui->confirmCombo->itemText(1), QStringLiteral("trn-box"));
        QVERIFY(ui->confirmCombo->isEnabled());
        QVERIFY(ui->confirmCombo->toolTip().contains(QStringLiteral("nkisim")));
        QVERIFY(ui->confirmCombo->toolTip().contains(QStringLiteral("simulated only")));

        ui->confirmCombo->setCurrentIndex(1);
        dialog.resize(dialog.sizeHint());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QString path =
            QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(QStringLiteral("optimize-dialog-confirm.png"));
        QVERIFY2(dialog.grab().toImage().save(path), qPrintable(path));
        qInfo("screenshot kept at %s", qPrintable(path));

        // a search on the Neuron host itself has nothing to confirm
        ui->hostCombo->setCurrentIndex(ui->hostCombo->findText(QStringLiteral("trn-box")));
        QVERIFY(!ui->confirmCombo->isEnabled());
        ui->hostCombo->setCurrentIndex(ui->hostCombo->findText(QStringLiteral("sim-box")));
        QVERIFY(ui->confirmCombo->isEnabled());
    }
};

QTEST_MAIN(TestOptimizeDialog)
#include "tst_optimizedialog.moc"
