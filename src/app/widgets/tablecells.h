#pragma once

#include <QString>

class QTableWidgetItem;

// Cells of the read-only tables the views fill themselves (Calibration, Study): selectable, not editable,
// numbers right-aligned as a spreadsheet shows them.
namespace TableCells {
QTableWidgetItem *readOnly(const QString &text, bool number = false);
}
