#include "editortabs.h"

#include "applogging.h"
#include "kerneleditor.h"
#include "model/kernelfile.h"
#include "userprompts.h"

#include <QDir>
#include <QFileInfo>

EditorTabs::EditorTabs(UserPrompts *prompts, QWidget *parent) : QTabWidget(parent), m_prompts(prompts)
{
    setTabsClosable(true);
    setMovable(true);
    setDocumentMode(true);
    connect(this, &QTabWidget::tabCloseRequested, this, &EditorTabs::closeEditor);
}

KernelEditor *EditorTabs::editorAt(int index) const
{
    QWidget *tab = widget(index);
    if (auto *editor = qobject_cast<KernelEditor *>(tab))
        return editor;
    if (tab && tab->property(viewOnlyProperty).toBool())
        return nullptr; // a comparison's panes are views of two kernels, not a document to run or save
    return tab ? tab->findChild<KernelEditor *>() : nullptr; // a tab that holds an editor beside other views
}

int EditorTabs::indexOfCandidate(const QString &candidateId) const
{
    for (int i = 0; i < count(); ++i)
        if (widget(i)->property("candidateId").toString() == candidateId)
            return i;
    return -1;
}

KernelEditor *EditorTabs::currentEditor() const
{
    return editorAt(currentIndex());
}

int EditorTabs::indexOfFile(const QString &path) const
{
    const QString wanted = QFileInfo(path).canonicalFilePath();
    if (wanted.isEmpty())
        return -1;
    for (int i = 0; i < count(); ++i)
        if (const KernelEditor *editor = editorAt(i); editor && QFileInfo(editor->filePath()).canonicalFilePath() == wanted)
            return i;
    return -1;
}

KernelEditor *EditorTabs::addEditor()
{
    auto *editor = new KernelEditor(this);
    connect(editor, &QsciScintilla::modificationChanged, this, [this, editor] { refreshTitle(editor); });
    connect(editor, &KernelEditor::filesDropped, this, &EditorTabs::filesDropped);
    connect(editor, &KernelEditor::titleChanged, this, [this, editor] { refreshTitle(editor); });
    setCurrentIndex(addTab(editor, QString()));
    return editor;
}

KernelEditor *EditorTabs::newKernel()
{
    auto *editor = addEditor();
    editor->setUntitledName(tr("Untitled-%1").arg(++m_untitledCounter));
    refreshTitle(editor);
    editor->setFocus();
    return editor;
}

bool EditorTabs::openFile(const QString &path)
{
    if (const int existing = indexOfFile(path); existing >= 0) {
        setCurrentIndex(existing);
        return true;
    }
    const KernelFile::ReadResult read = KernelFile::read(path);
    if (!read.ok) {
        qCWarning(lcEditor) << "open failed:" << read.error;
        m_prompts->warn(this, tr("Cannot open kernel"), read.error);
        Q_EMIT fileOpenFailed(path);
        return false;
    }
    auto *editor = addEditor();
    editor->setFilePath(QFileInfo(path).absoluteFilePath());
    editor->setText(read.text);
    editor->setModified(false);
    editor->setCursorPosition(0, 0);
    refreshTitle(editor);
    qCInfo(lcEditor) << "opened" << editor->filePath();
    Q_EMIT fileOpened(editor->filePath());
    return true;
}

void EditorTabs::openWithDialog()
{
    for (const QString &path : m_prompts->openFileNames(this, startDir()))
        openFile(path);
}

bool EditorTabs::save(int index)
{
    KernelEditor *editor = editorAt(index);
    if (!editor)
        return false;
    if (editor->filePath().isEmpty())
        return saveAs(index);
    const KernelFile::WriteResult written = KernelFile::write(editor->filePath(), editor->text());
    if (!written.ok) {
        qCWarning(lcEditor) << "save failed:" << written.error;
        m_prompts->warn(this, tr("Cannot save kernel"), written.error);
        return false;
    }
    editor->setModified(false);
    refreshTitle(editor);
    return true;
}

bool EditorTabs::saveAs(int index)
{
    KernelEditor *editor = editorAt(index);
    if (!editor)
        return false;
    const QString suggested = editor->filePath().isEmpty()
                                  ? QDir(startDir()).filePath(editor->untitledName() + QStringLiteral(".py"))
                                  : editor->filePath();
    const QString path = m_prompts->saveFileName(this, suggested);
    if (path.isEmpty())
        return false; // the user cancelled: nothing changes
    const QString previous = editor->filePath();
    editor->setFilePath(QFileInfo(path).absoluteFilePath());
    if (!save(index)) {
        editor->setFilePath(previous);
        refreshTitle(editor);
        return false;
    }
    Q_EMIT fileOpened(editor->filePath());
    return true;
}

bool EditorTabs::closeEditor(int index)
{
    KernelEditor *editor = editorAt(index);
    if (!editor) {
        QWidget *view = widget(index);
        if (!view)
            return false;
        removeTab(index);
        view->deleteLater();
        return true;
    }
    if (editor->isModified()) {
        setCurrentIndex(index);
        switch (m_prompts->askSaveChanges(this, editor->displayName())) {
        case UserPrompts::SaveChoice::Cancel:
            return false;
        case UserPrompts::SaveChoice::Save:
            if (!save(index))
                return false; // never drop text the user asked to keep
            break;
        case UserPrompts::SaveChoice::Discard:
            break;
        }
    }
    removeTab(index);
    editor->deleteLater();
    return true;
}

bool EditorTabs::closeAll()
{
    while (count() > 0)
        if (!closeEditor(count() - 1))
            return false;
    return true;
}

bool EditorTabs::hasUnsavedChanges() const
{
    for (int i = 0; i < count(); ++i)
        if (const KernelEditor *editor = editorAt(i); editor && editor->isModified())
            return true;
    return false;
}

void EditorTabs::tabInserted(int index)
{
    QTabWidget::tabInserted(index);
    Q_EMIT countChanged(count());
}

void EditorTabs::tabRemoved(int index)
{
    QTabWidget::tabRemoved(index);
    Q_EMIT countChanged(count());
}

void EditorTabs::refreshTitle(KernelEditor *editor)
{
    const int index = indexOf(editor);
    if (index < 0)
        return;
    setTabText(index, editor->title() + (editor->isModified() ? QStringLiteral(" *") : QString()));
    setTabToolTip(index, editor->filePath().isEmpty() ? editor->displayName() : editor->filePath());
}

QString EditorTabs::startDir() const
{
    if (const KernelEditor *editor = currentEditor(); editor && !editor->filePath().isEmpty())
        return QFileInfo(editor->filePath()).absolutePath();
    return QDir::homePath();
}
