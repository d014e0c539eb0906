#include "userprompts.h"

#include "itemornewdialog.h"

#include <QFileDialog>
#include <QInputDialog>
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

QStringList UserPrompts::openProfileExport(QWidget *parent)
{
    return QFileDialog::getOpenFileNames(parent, QObject::tr("Import a Neuron Explorer CSV export"), {},
                                         QObject::tr("Neuron Explorer CSV (Instruction.csv DmaPacketAggregated.csv "
                                                     "DmaPacket.csv);;CSV files (*.csv)"));
}

QString UserPrompts::saveFileName(QWidget *parent, const QString &suggestedPath)
{
    return QFileDialog::getSaveFileName(parent, QObject::tr("Save kernel as"), suggestedPath, kernelFilter);
}

QString UserPrompts::exportFileName(QWidget *parent, const QString &title, const QString &filter)
{
    return QFileDialog::getSaveFileName(parent, title, QString(), filter);
}

bool UserPrompts::confirm(QWidget *parent, const QString &title, const QString &text)
{
    return QMessageBox::question(parent, title, text, QMessageBox::Yes | QMessageBox::No, QMessageBox::No) ==
           QMessageBox::Yes;
}

QString UserPrompts::chooseItem(QWidget *parent, const QString &title, const QString &label,
                                const QStringList &items)
{
    bool ok = false;
    const QString item = QInputDialog::getItem(parent, title, label, items, 0, false, &ok);
    return ok ? item : QString();
}

QString UserPrompts::chooseItemOrNew(QWidget *parent, const QString &title, const QString &label,
                                     const QStringList &items, const QString &newItem)
{
    ItemOrNewDialog dialog(title, label, items, newItem, parent);
    return dialog.exec() == QDialog::Accepted ? dialog.choice() : QString();
}

QString UserPrompts::chooseFolder(QWidget *parent, const QString &title, const QString &startDir)
{
    return QFileDialog::getExistingDirectory(parent, title, startDir);
}

void UserPrompts::inform(QWidget *parent, const QString &title, const QString &text)
{
    QMessageBox::information(parent, title, text);
}

std::optional<int> UserPrompts::askNumber(QWidget *parent, const QString &title, const QString &label,
                                          int value, int minimum, int maximum)
{
    bool ok = false;
    const int n = QInputDialog::getInt(parent, title, label, value, minimum, maximum, 1, &ok);
    return ok ? std::optional<int>(n) : std::nullopt;
}
