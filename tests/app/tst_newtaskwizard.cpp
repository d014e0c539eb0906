#include "appcontext.h"
#include "common/loghub.h"
#include "editortabs.h"
#include "isolatedsettings.h"
#include "itemmodels/benchmarklistmodel.h"
#include "kerneleditor.h"
#include "mainwindow.h"
#include "newtaskcheckpage.h"
#include "newtaskinputspage.h"
#include "newtaskkernelpage.h"
#include "newtaskreferencepage.h"
#include "newtaskwizard.h"
#include "resultsdock.h"
#include "scriptedprompts.h"
#include "taskquestion.h"
#include "tasksdock.h"

#include <QAbstractButton>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QJsonDocument>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QTreeWidget>

#include <atomic>

// The New Task wizard driven as a person would (keys and clicks): our own row-softmax kernel gets a task
// whose reference is written in the wizard's editor, checked by the real runner on nkisim on this machine,
// and created in the project beside the kernel; then the bad cases, each stopping where a person would see
// why.
class TestNewTaskWizard : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;
    std::unique_ptr<AppContext> m_context; // the window's context, whose engine reads and checks (issue 32)

    static QString fixture(const QString &name)
    {
        return QStringLiteral(ACCELOPT_TEST_FIXTURES "/usertasks/gui/") + name;
    }
    static QString read(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }
    // A repository (a folder holding .git) with the kernel in it, so its project tasks go to repo/.accelopt.
    QString project(const QString &name, const QString &kernelFixture)
    {
        const QString root = m_dir.filePath(name);
        QDir().mkpath(root + QStringLiteral("/.git"));
        QDir().mkpath(root + QStringLiteral("/kernels"));
        const QString path = root + QStringLiteral("/kernels/") + kernelFixture;
        QFile::remove(path);
        if (!QFile::copy(fixture(kernelFixture), path))
            qFatal("cannot copy %s", qPrintable(kernelFixture));
        return path;
    }
    static NewTaskWizard::Kernel kernelAt(const QString &path)
    {
        return {QFileInfo(path).fileName(), path, read(path)};
    }
    void shoot(QWidget *widget, const QString &name)
    {
        QCoreApplication::processEvents();
        const QString path = QStringLiteral(ACCELOPT_TEST_ARTIFACTS "/") + name;
        QVERIFY2(widget->grab().save(path), qPrintable(path));
    }
    static void click(QAbstractButton *button)
    {
        QVERIFY2(button->isEnabled(), qPrintable(button->text() + QStringLiteral(" is disabled")));
        QTest::mouseClick(button, Qt::LeftButton);
    }
    // Types into a table cell as a person does: F2 opens the cell's editor, Ctrl+A and the text replace what
    // is there, Return commits it.
    static void typeIntoCell(QTableWidget *table, int row, int column, const QString &text)
    {
        table->setFocus();
        table->setCurrentCell(row, column);
        QTest::keyClick(table, Qt::Key_F2);
        QLineEdit *editor = nullptr; // the cell's, which F2 opened over the cell
        for (QLineEdit *edit : table->viewport()->findChildren<QLineEdit *>())
            if (edit->isVisible())
                editor = edit;
        QVERIFY(editor);
        QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(editor, text);
        QTest::keyClick(editor, Qt::Key_Return);
        // The delegate commits a Return through a queued call.
        QTRY_COMPARE(table->item(row, column)->text(), text);
    }
    // The reference written elsewhere and pasted over the template: Ctrl+A, Ctrl+V in the editor pane.
    static void pasteReference(NewTaskReferencePage *page, const QString &text)
    {
        click(page->writeRadio());
        QApplication::clipboard()->setText(text);
        page->editor()->setFocus();
        QTest::keyClick(page->editor(), Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(page->editor(), Qt::Key_V, Qt::ControlModifier);
        QCOMPARE(page->editor()->text(), text);
    }
    // From the Kernel page to the Check page with the fixture's shapes, a small shape and the reference.
    void fillIn(NewTaskWizard &wizard, const QString &reference, const QString &shots = {})
    {
        QCOMPARE(wizard.currentId(), int(NewTaskWizard::KernelPageId));
        QVERIFY(wizard.kernelPage()->signatureLabel()->text().contains(QStringLiteral("row_softmax(x)")));
        if (!shots.isEmpty())
            shoot(&wizard, shots.arg(QStringLiteral("kernel")));
        click(wizard.button(QWizard::NextButton));
        NewTaskInputsPage *inputs = wizard.inputsPage();
        QCOMPARE(wizard.currentPage(), inputs);
        QTableWidget *table = inputs->table();
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, NewTaskInputsPage::NameColumn)->text(), QStringLiteral("x"));
        QCOMPARE(table->item(0, NewTaskInputsPage::ShapeColumn)->text(),
                 QStringLiteral("256x2048")); // the file says
        typeIntoCell(table, 0, NewTaskInputsPage::SmallColumn, QStringLiteral("128x512"));
        QCOMPARE(inputs->nameEdit()->text(), QStringLiteral("row_softmax"));
        QVERIFY(inputs->projectRadio()->isChecked());
        if (!shots.isEmpty())
            shoot(&wizard, shots.arg(QStringLiteral("inputs")));
        click(wizard.button(QWizard::NextButton));
        NewTaskReferencePage *page = wizard.referencePage();
        QCOMPARE(wizard.currentPage(), page);
        // The template is built from the inputs: numpy, forward(x), float64 in, float32 out.
        const QString initial = page->editor()->text();
        QVERIFY(initial.contains(QStringLiteral("import numpy as np")));
        QVERIFY(initial.contains(QStringLiteral("def forward(x):")));
        QVERIFY(initial.contains(QStringLiteral("x: 256x2048 float32")));
        QCOMPARE(page->toleranceEdit()->text(), QStringLiteral("2e-5"));
        if (!shots.isEmpty())
            shoot(&wizard, shots.arg(QStringLiteral("reference")));
        pasteReference(page, reference);
        click(wizard.button(QWizard::NextButton));
        QCOMPARE(wizard.currentPage(), wizard.checkPage());
        if (!shots.isEmpty())
            shoot(&wizard, shots.arg(QStringLiteral("check")));
    }
    static QString wrongReference()
    {
        // Plausible but wrong: no max subtracted and no normalisation, so the kernel cannot match it.
        return QStringLiteral("import numpy as np\n\n\ndef forward(x):\n"
                              "    return np.exp(np.asarray(x, dtype=np.float64)).astype(np.float32)\n");
    }
    static QStringList taskFolders(const QString &dir)
    {
        return QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden);
    }

private Q_SLOTS:
    void initTestCase()
    {
        LogHub::install();
        QVERIFY(m_dir.isValid());
        qputenv("ACCELOPT_WORKSPACE_DB", m_dir.filePath(QStringLiteral("workspace.sqlite")).toUtf8());
        qputenv("ACCELOPT_MEMORY_DB", m_dir.filePath(QStringLiteral("memory.sqlite")).toUtf8());
        qputenv("ACCELOPT_LLM_CONFIG", m_dir.filePath(QStringLiteral("llm.json")).toUtf8());
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("hosts.json")).toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        m_context = std::make_unique<AppContext>(Engine::Settings{});
    }

    void cleanupTestCase() { m_context.reset(); }

    void fileWithoutJitFunctionStopsOnTheKernelPage()
    {
        ScriptedPrompts prompts;
        NewTaskWizard wizard(m_context.get(),
                             kernelAt(project(QStringLiteral("nojit"), QStringLiteral("helpers_only.py"))),
                             QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks"), &prompts);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));
        QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());
        QLabel *error = wizard.kernelPage()->errorLabel();
        QVERIFY(error->isVisible());
        QVERIFY2(error->text().contains(QStringLiteral("@nki.jit")), qPrintable(error->text()));
        shoot(&wizard, QStringLiteral("wizard-nojit.png"));
    }

    void badShapeCellIsMarkedAndSaid()
    {
        ScriptedPrompts prompts;
        NewTaskWizard wizard(m_context.get(),
                             kernelAt(project(QStringLiteral("shape"), QStringLiteral("row_softmax.py"))),
                             QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks"), &prompts);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));
        wizard.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&wizard));
        click(wizard.button(QWizard::NextButton));
        NewTaskInputsPage *inputs = wizard.inputsPage();
        QVERIFY(wizard.button(QWizard::NextButton)->isEnabled());
        typeIntoCell(inputs->table(), 0, NewTaskInputsPage::ShapeColumn, QStringLiteral("256xx"));
        QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());
        QVERIFY(inputs->problemLabel()->isVisible());
        QVERIFY2(inputs->problemLabel()->text().contains(QStringLiteral("256xx")),
                 qPrintable(inputs->problemLabel()->text()));
        QVERIFY(!inputs->table()->item(0, NewTaskInputsPage::ShapeColumn)->toolTip().isEmpty());
        shoot(&wizard, QStringLiteral("wizard-badshape.png"));
        // A bad name is said too; both mended, Next is back.
        inputs->nameEdit()->setFocus();
        QTest::keyClick(inputs->nameEdit(), Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(inputs->nameEdit(), QStringLiteral("9 lives"));
        QVERIFY(inputs->problemLabel()->text().contains(QStringLiteral("Task name")));
        QTest::keyClick(inputs->nameEdit(), Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(inputs->nameEdit(), QStringLiteral("row_softmax"));
        typeIntoCell(inputs->table(), 0, NewTaskInputsPage::ShapeColumn, QStringLiteral("256x2048"));
        QVERIFY(wizard.button(QWizard::NextButton)->isEnabled());
        QVERIFY(!inputs->problemLabel()->isVisible());
    }

    void failingReferenceKeepsTheWizardOpenAndCreatesNothing()
    {
        ScriptedPrompts prompts;
        const QString kernel = project(QStringLiteral("wrong"), QStringLiteral("row_softmax.py"));
        NewTaskWizard wizard(m_context.get(), kernelAt(kernel),
                             QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks"), &prompts);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));
        wizard.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&wizard));
        fillIn(wizard, wrongReference());
        if (QTest::currentTestFailed())
            return;
        const QString destination = wizard.parentDir();
        QCOMPARE(destination, m_dir.filePath(QStringLiteral("wrong/.accelopt/tasks")));
        QSignalSpy checked(wizard.checkPage(), &NewTaskCheckPage::checked);
        // Issue 32: the check runs on the engine's thread (its answer is emitted there), not the wizard's.
        std::atomic<QThread *> checkedOn = nullptr;
        const auto recording = QObject::connect(
            m_context->engine(), &Engine::taskCreationFinished,
            [&checkedOn](quint64, const TaskCreation::Result &) { checkedOn = QThread::currentThread(); });
        click(wizard.button(QWizard::FinishButton));
        QVERIFY(wizard.checkPage()->running() || checked.size() == 1);
        QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 1, 300000);
        QObject::disconnect(recording);
        QCOMPARE(checked.first().first().toBool(), false);
        QCOMPARE(checkedOn.load(), m_context->engine()->thread());
        QVERIFY(checkedOn.load() != QThread::currentThread());
        QVERIFY(wizard.isVisible());
        QCOMPARE(wizard.currentPage(), wizard.checkPage());
        const QString status = wizard.checkPage()->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("Not created")), qPrintable(status));
        QTreeWidget *checks = wizard.checkPage()->checks();
        QStringList failed;
        for (int i = 0; i < checks->topLevelItemCount(); ++i)
            if (checks->topLevelItem(i)->text(1) == QStringLiteral("failed"))
                failed << checks->topLevelItem(i)->text(0);
        QVERIFY2(!failed.isEmpty(), qPrintable(status));
        shoot(&wizard, QStringLiteral("wizard-failedcheck.png"));
        QVERIFY2(taskFolders(destination).isEmpty(), qPrintable(taskFolders(destination).join(u' ')));
        QVERIFY(wizard.button(QWizard::FinishButton)->isEnabled()); // mend the reference and try again
    }

    // Issue 32: a reference chosen as a file is read on the engine's thread at Check and Create, not by the
    // wizard; a file gone by then is said, and nothing is created.
    void aReferenceFileGoneByTheCheckIsSaid()
    {
        ScriptedPrompts prompts;
        const QString kernel = project(QStringLiteral("gone"), QStringLiteral("row_softmax.py"));
        NewTaskWizard wizard(m_context.get(), kernelAt(kernel),
                             QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks"), &prompts);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));
        wizard.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&wizard));
        fillIn(wizard, wrongReference());
        if (QTest::currentTestFailed())
            return;
        click(wizard.button(QWizard::BackButton));
        NewTaskReferencePage *page = wizard.referencePage();
        QCOMPARE(wizard.currentPage(), page);
        const QString file = m_dir.filePath(QStringLiteral("gone/reference.py"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(wrongReference().toUtf8());
        f.close();
        click(page->fileRadio());
        page->fileEdit()->setText(file);
        QCOMPARE(wizard.referenceFile(), file);
        QVERIFY(wizard.draft().referenceSource.isEmpty()); // the wizard does not read it
        click(wizard.button(QWizard::NextButton));
        QCOMPARE(wizard.currentPage(), wizard.checkPage());
        QVERIFY(QFile::remove(file));
        QSignalSpy checked(wizard.checkPage(), &NewTaskCheckPage::checked);
        click(wizard.button(QWizard::FinishButton));
        QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 1, 30000);
        QCOMPARE(checked.first().first().toBool(), false);
        const QString status = wizard.checkPage()->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("cannot read the reference")), qPrintable(status));
        QVERIFY2(taskFolders(wizard.parentDir()).isEmpty(),
                 qPrintable(taskFolders(wizard.parentDir()).join(u' ')));
    }

    void benchmarkOfOwnKernelMakesItsTaskAndGoesOn()
    {
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.resize(1500, 950);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString kernel = project(QStringLiteral("mine"), QStringLiteral("row_softmax.py"));
        QVERIFY(window.openFile(kernel));
        KernelEditor *editor = window.editors()->currentEditor();
        QVERIFY(editor);

        // F5 asks for the task; the answer is New Task from This Kernel…, which opens the wizard.
        prompts->itemAnswers = {TaskQuestion::newTaskItem()};
        bool created = false;
        QString failure;
        auto *poll = new QTimer(this);
        poll->setInterval(50);
        connect(poll, &QTimer::timeout, this, [&, poll] {
            auto *wizard = qobject_cast<NewTaskWizard *>(QApplication::activeModalWidget());
            if (!wizard || !wizard->isVisible())
                return;
            poll->stop();
            fillIn(*wizard, read(fixture(QStringLiteral("softmax_reference.py"))),
                   QStringLiteral("wizard-%1-1500x950.png"));
            if (QTest::currentTestFailed()) {
                failure = QStringLiteral("filling in the wizard failed");
                wizard->reject();
                return;
            }
            QSignalSpy checked(wizard->checkPage(), &NewTaskCheckPage::checked);
            click(wizard->button(QWizard::FinishButton));
            if (!QTest::qWaitFor([&] { return checked.size() == 1; }, 300000)) {
                failure = QStringLiteral("the check did not end");
                wizard->reject();
                return;
            }
            created = checked.first().first().toBool();
            if (!created) {
                failure = wizard->checkPage()->statusLabel()->text();
                shoot(wizard, QStringLiteral("wizard-unexpected-failure.png"));
                wizard->reject();
            }
        });
        poll->start();
        QTest::keyClick(editor, Qt::Key_F5);
        poll->deleteLater();
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QVERIFY(created);
        QVERIFY2(prompts->itemQuestions.size() == 1 &&
                     prompts->itemQuestions.first().contains(TaskQuestion::newTaskItem()),
                 qPrintable(prompts->itemQuestions.join(u'\n')));

        // The task folder is there, with its files, where the project keeps its tasks.
        const QString folder = m_dir.filePath(QStringLiteral("mine/.accelopt/tasks/row_softmax"));
        for (const char *file : {"task.json", "reference.py", "baseline.py"})
            QVERIFY2(QFileInfo::exists(folder + u'/' + QLatin1String(file)), file);
        QCOMPARE(editor->property("taskRef").toJsonObject().value(QStringLiteral("dir")).toString(),
                 QFileInfo(folder).absoluteFilePath());
        // It records the kernel file, so the file finds it again after the kernel is edited.
        QFile json(folder + QStringLiteral("/task.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QString recorded =
            QJsonDocument::fromJson(json.readAll()).object().value(QStringLiteral("kernel_file")).toString();
        QCOMPARE(QFileInfo(QDir(folder).filePath(recorded)).canonicalFilePath(),
                 QFileInfo(editor->filePath()).canonicalFilePath());

        // The Tasks dock lists it, labelled as the project's.
        QTreeWidget *tasks = window.tasksDock()->tree();
        const QList<QTreeWidgetItem *> found =
            tasks->findItems(QStringLiteral("row_softmax"), Qt::MatchExactly);
        QCOMPARE(found.size(), 1);
        QCOMPARE(found.first()->text(TasksDock::OriginColumn), QStringLiteral("project"));

        // And the Benchmark that asked went on, against the new task, and the kernel passes it.
        BenchmarkListModel *runs = window.resultsDock()->model();
        QTRY_COMPARE_WITH_TIMEOUT(runs->rowCount(), 1, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(runs->at(0).evaluation.has_value(), 300000);
        QCOMPARE(runs->at(0).task, QStringLiteral("row_softmax"));
        QVERIFY2(runs->at(0).evaluation->ok(), qPrintable(runs->at(0).evaluation->error));
        shoot(&window, QStringLiteral("workbench-own-task.png"));

        // Optimize offers the same tasks and the same way to make one, with the tab's new task chosen.
        QString shown, button;
        auto *dialogPoll = new QTimer(this);
        dialogPoll->setInterval(50);
        connect(dialogPoll, &QTimer::timeout, this, [&, dialogPoll] {
            auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
            if (!dialog || !dialog->isVisible())
                return;
            dialogPoll->stop();
            shown = dialog->findChild<QComboBox *>(QStringLiteral("taskCombo"))->currentText();
            if (auto *make = dialog->findChild<QAbstractButton *>(QStringLiteral("newTaskButton")))
                button = make->text();
            shoot(dialog, QStringLiteral("optimize-own-task.png"));
            dialog->reject();
        });
        dialogPoll->start();
        window.activateWindow(); // the window a shortcut reaches, as it is again once the wizard has closed
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(editor, Qt::Key_O, Qt::ControlModifier | Qt::ShiftModifier);
        dialogPoll->deleteLater();
        QVERIFY2(prompts->warnings.isEmpty(), qPrintable(prompts->warnings.join(u'\n')));
        QCOMPARE(shown, QStringLiteral("row_softmax (project)"));
        QVERIFY2(button.contains(QStringLiteral("New Task from This Kernel")), qPrintable(button));
    }
};

QTEST_MAIN(TestNewTaskWizard)
#include "tst_newtaskwizard.moc"
