"""The labels of an account's recovery (backup, scratch) codes, in the languages people write in.

Lower case, as the keyword gate sees text, singular and plural: a word must stand alone (a
letter after it makes it part of another), so each form the label takes is listed (checks/codes.py reads the label to its colon and the codes after it).
"""

from __future__ import annotations

RECOVERY_WORDS: tuple[str, ...] = (
    "recovery code", "recovery codes", "backup code", "backup codes", "backup-code", "backup-codes", "scratch code",
    "scratch codes", "emergency code", "emergency codes", "recovery key", "recovery keys", "one-time code",
    "one-time codes", "wiederherstellungscode", "wiederherstellungscodes", "notfallcode", "notfallcodes", "codes de récupération", "code de récupération", "codes de secours",
    "code de secours", "códigos de recuperación", "código de recuperación", "códigos de respaldo", "código de respaldo",
    "códigos de recuperação", "código de recuperação", "códigos de backup", "código de backup", "codici di recupero",
    "codice di recupero", "codici di backup", "herstelcode", "herstelcodes", "back-upcode", "back-upcodes", "kody zapasowe", "kod zapasowy",
    "kody odzyskiwania", "kod odzyskiwania", "yedek kod", "yedek kodlar", "yedek kodları", "kurtarma kodu", "kurtarma kodları", "kódy pro obnovení", "återställningskod",
    "återställningskoder", "reservkod", "reservkoder", "gjenopprettingskode", "gjenopprettingskoder", "gendannelseskode",
    "gendannelseskoder", "palautuskood", "резервные коды", "резервный код",
    "коды восстановления", "код восстановления", "резервні коди", "恢复码", "备用码", "恢復碼", "備用碼",
    "リカバリーコード", "バックアップコード", "復旧コード", "복구 코드", "백업 코드", "mã khôi phục", "mã dự phòng",
    "kode pemulihan", "kode cadangan", "رموز الاسترداد", "رموز احتياطية",
)
