#include "editortabs.h"
#include "isolatedsettings.h"
#include "kerneleditor.h"
#include "scriptedprompts.h"

#include <QApplication>
#include <QFile>
#include <QLocalServer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <Qsci/qscilexer.h>

class TestEditorTabs : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;

    QString fixture(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(bytes);
        return path;
    }
    static QByteArray contents(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
    }

private Q_SLOTS:
    void openEditSaveReopen()
    {
        ScriptedPrompts prompts;
        const QString path = fixture(QStringLiteral("k.py"), "def kernel(x):\n    return x\n");
        {
            EditorTabs tabs(&prompts);
            QSignalSpy opened(&tabs, &EditorTabs::fileOpened);
            QVERIFY(tabs.openFile(path));
            QCOMPARE(opened.size(), 1);
            KernelEditor *editor = tabs.currentEditor();
            QCOMPARE(editor->text(), QStringLiteral("def kernel(x):\n    return x\n"));
            QVERIFY(!editor->isModified());
            QCOMPARE(tabs.tabText(0), QStringLiteral("k.py"));

            editor->setCursorPosition(1, 0);
            editor->insert(QStringLiteral("    # edited\n"));
            QVERIFY(editor->isModified());
            QCOMPARE(tabs.tabText(0), QStringLiteral("k.py *"));
            QVERIFY(tabs.hasUnsavedChanges());

            QVERIFY(tabs.save(0));
            QVERIFY(!editor->isModified());
            QCOMPARE(tabs.tabText(0), QStringLiteral("k.py"));
            QCOMPARE(contents(path), QByteArray("def kernel(x):\n    # edited\n    return x\n"));

            // Opening the same file again focuses the existing tab instead of duplicating it.
            QVERIFY(tabs.openFile(path));
            QCOMPARE(tabs.count(), 1);
            QVERIFY(tabs.closeAll());
            QVERIFY(prompts.saveQuestions.isEmpty()); // nothing unsaved, nothing asked
        }
        EditorTabs again(&prompts);
        QVERIFY(again.openFile(path));
        QCOMPARE(again.currentEditor()->text(),
                 QStringLiteral("def kernel(x):\n    # edited\n    return x\n"));
        QVERIFY(!again.currentEditor()->isModified());
        QVERIFY(prompts.warnings.isEmpty());
    }

    void badFilesGiveClearMessages_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("binary") << QStringLiteral("b.py")
                                << QByteArray("\x7f"
                                              "ELF\x00\x00",
                                              6)
                                << QStringLiteral("binary");
        QTest::newRow("latin1") << QStringLiteral("l.py") << QByteArray("x = '\xE9'\n")
                                << QStringLiteral("UTF-8");
        QTest::newRow("missing") << QStringLiteral("gone.py") << QByteArray()
                                 << QStringLiteral("does not exist");
    }

    void badFilesGiveClearMessages()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        ScriptedPrompts prompts;
        EditorTabs tabs(&prompts);
        const QString path = bytes.isEmpty() ? m_dir.filePath(name) : fixture(name, bytes);
        QSignalSpy failed(&tabs, &EditorTabs::fileOpenFailed);
        QVERIFY(!tabs.openFile(path));
        QCOMPARE(tabs.count(), 0);
        QCOMPARE(failed.size(), 1);
        QCOMPARE(prompts.warnings.size(), 1);
        QVERIFY2(prompts.warnings.first().contains(expected), qPrintable(prompts.warnings.first()));
        QVERIFY(prompts.warnings.first().contains(name));
    }

    void socketGivesClearMessage()
    {
        ScriptedPrompts prompts;
        EditorTabs tabs(&prompts);
        QLocalServer server;
        const QString socketPath = m_dir.filePath(QStringLiteral("socket.py"));
        QVERIFY(server.listen(socketPath));
        QVERIFY(!tabs.openFile(socketPath));
        QCOMPARE(prompts.warnings.size(), 1);
        QVERIFY2(prompts.warnings.first().contains(QStringLiteral("not a regular file")),
                 qPrintable(prompts.warnings.first()));
    }

    void closingUnsavedAsks()
    {
        ScriptedPrompts prompts;
        EditorTabs tabs(&prompts);
        const QString path = fixture(QStringLiteral("u.py"), "a = 1\n");
        QVERIFY(tabs.openFile(path));
        tabs.currentEditor()->append(QStringLiteral("b = 2\n"));

        prompts.saveAnswers = {UserPrompts::SaveChoice::Cancel};
        QVERIFY(!tabs.closeEditor(0));
        QCOMPARE(tabs.count(), 1);
        QCOMPARE(prompts.saveQuestions, QStringList{QStringLiteral("u.py")});

        prompts.saveAnswers = {UserPrompts::SaveChoice::Discard};
        QVERIFY(tabs.closeEditor(0));
        QCOMPARE(tabs.count(), 0);
        QCOMPARE(contents(path), QByteArray("a = 1\n"));

        QVERIFY(tabs.openFile(path));
        tabs.currentEditor()->append(QStringLiteral("c = 3\n"));
        prompts.saveAnswers = {UserPrompts::SaveChoice::Save};
        QVERIFY(tabs.closeAll());
        QCOMPARE(contents(path), QByteArray("a = 1\nc = 3\n"));
    }

    void newKernelSaveAsAndCancel()
    {
        ScriptedPrompts prompts;
        EditorTabs tabs(&prompts);
        KernelEditor *editor = tabs.newKernel();
        QVERIFY(editor->untitledName().startsWith(QStringLiteral("Untitled-")));
        editor->setText(QStringLiteral("def kernel():\n    pass\n"));

        prompts.saveAsAnswers = {QString()}; // the user cancels the file dialog
        QVERIFY(!tabs.save(0));
        QVERIFY(editor->isModified());
        QVERIFY(editor->filePath().isEmpty());

        const QString target = m_dir.filePath(QStringLiteral("new_kernel.py"));
        prompts.saveAsAnswers = {target};
        QSignalSpy opened(&tabs, &EditorTabs::fileOpened);
        QVERIFY(tabs.save(0));
        QCOMPARE(editor->filePath(), target);
        QCOMPARE(opened.size(), 1);
        QCOMPARE(contents(target), QByteArray("def kernel():\n    pass\n"));
        QCOMPARE(tabs.tabText(0), QStringLiteral("new_kernel.py"));
    }

    void failedSaveKeepsTextAndPath()
    {
        ScriptedPrompts prompts;
        EditorTabs tabs(&prompts);
        KernelEditor *editor = tabs.newKernel();
        editor->setText(QStringLiteral("precious = True\n"));
        prompts.saveAsAnswers = {m_dir.filePath(QStringLiteral("missing-dir/k.py"))};
        QVERIFY(!tabs.save(0));
        QVERIFY(editor->filePath().isEmpty());
        QVERIFY(editor->isModified());
        QCOMPARE(editor->text(), QStringLiteral("precious = True\n"));
        QCOMPARE(prompts.warnings.size(), 1);
        QVERIFY(prompts.warnings.first().contains(QStringLiteral("Cannot write")));

        // Closing with Save chosen but failing must not drop the tab.
        prompts.saveAnswers = {UserPrompts::SaveChoice::Save};
        prompts.saveAsAnswers = {m_dir.filePath(QStringLiteral("missing-dir/k.py"))};
        QVERIFY(!tabs.closeEditor(0));
        QCOMPARE(tabs.count(), 1);
    }

    void editorIsConfiguredForKernels()
    {
        ScriptedPrompts prompts;
        EditorTabs tabs(&prompts);
        KernelEditor *editor = tabs.newKernel();
        QVERIFY(editor->lexer());
        QCOMPARE(QString::fromLatin1(editor->lexer()->language()), QStringLiteral("Python"));
        QVERIFY(editor->marginLineNumbers(0));
        QCOMPARE(editor->folding(), QsciScintilla::BoxedTreeFoldStyle);
        QCOMPARE(editor->braceMatching(), QsciScintilla::SloppyBraceMatch);
        QVERIFY(KernelEditor::nkiApiWords().contains(QStringLiteral("nl.affine_range")));
        QVERIFY(KernelEditor::nkiApiWords().contains(QStringLiteral("nisa.nc_matmul")));

        editor->setText(QStringLiteral("import neuronxcc.nki.language as nl\nmy_tile = 1\n"));
        const QStringList offered = editor->completionsFor(QStringLiteral("nl.aff"));
        QCOMPARE(offered, QStringList{QStringLiteral("nl.affine_range")});
        QVERIFY(editor->completionsFor(QStringLiteral("my_")).contains(QStringLiteral("my_tile")));
        QVERIFY(
            editor->completionsFor(QStringLiteral("nisa.nc_")).contains(QStringLiteral("nisa.nc_transpose")));

        // Typing a prefix pops the list; choosing an entry replaces the prefix with the whole name.
        editor->setFocus();
        editor->setCursorPosition(2, 0);
        QTest::keyClicks(editor, QStringLiteral("nl.affine_r"));
        QVERIFY(editor->isListActive());
        QTest::keyClick(editor, Qt::Key_Return);
        QCOMPARE(editor->text(2), QStringLiteral("nl.affine_range"));
    }
};

QTEST_MAIN(TestEditorTabs)
#include "tst_editortabs.moc"
