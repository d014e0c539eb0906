#include "userprompts.h"

#include <QFileDialog>
#include <QMessageBox>

namespace {
const QString kernelFilter = QStringLiteral("NKI kernels (*.py);;All files (*)");
}

void UserPrompts::warn(QWidget *parent, const QString &title, const QString &text)
{
    QMessageBox::warning(parent, title, text);
}

UserPrompts::SaveChoice UserPrompts::askSaveChanges(QWidget *parent, const QString &documentName)
{
    const auto answer = QMessageBox::warning(
        parent, QObject::tr("Unsaved changes"),
        QObject::tr("%1 has unsaved changes. Save them before closing?").arg(documentName),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return SaveChoice::Save;
    if (answer == QMessageBox::Discard)
        return SaveChoice::Discard;
    return SaveChoice::Cancel;
}

QStringList UserPrompts::openFileNames(QWidget *parent, const QString &startDir)
{
    return QFileDialog::getOpenFileNames(parent, QObject::tr("Open kernel"), startDir, kernelFilter);
}

QString UserPrompts::saveFileName(QWidget *parent, const QString &suggestedPath)
{
    return QFileDialog::getSaveFileName(parent, QObject::tr("Save kernel as"), suggestedPath, kernelFilter);
}
