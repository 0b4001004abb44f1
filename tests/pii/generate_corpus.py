#!/usr/bin/env python3
"""Generates a labelled PII corpus for pii_eval (see README.md).

Each output line is a JSON object:

  {"id": "r1-00000", "lang": "de", "text": "...",
   "entities": [{"category": "iban", "start": 17, "end": 44, "kind": "iban/DE/grouped"}],
   "decoys":   [{"category": "payment_card", "start": 80, "end": 96, "kind": "card/luhn_fail"}]}

start/end are UTF-8 byte offsets into text (end exclusive). "entities" are the
planted PII values (the span is exactly the value: a grouped card from its first
to its last digit, the date part of a date of birth, a PEM block from
"-----BEGIN" to the closing "-----"). "decoys" are planted near-misses that look
like the named category but are not PII of it and must not be reported; they are
informational (pii_eval uses them to name false positives). "kind" is extra
detail for error reports. Everything else in a text is filler free of PII.

Standard library only; the same --seed and --count always give the same file.
Every planted value is re-checked against a Python model of the rules in
core/src/pii/validators.h before it is written (positives must pass, decoys must
fail), so a generator bug stops the run instead of producing a wrong label.
"""

import argparse
import base64
import json
import random
import re
import string
import sys
import unicodedata
from collections import Counter

CATEGORIES = ["email", "phone", "payment_card", "ssn", "iban", "ip_address", "secret", "date_of_birth"]
CRITICAL = ["payment_card", "ssn", "iban", "secret"]
LANGS = ["en", "de", "fr", "es", "it", "nl"]
LANG_WEIGHTS = [40, 14, 12, 12, 11, 11]

# ---------------------------------------------------------------------------
# Models of the validation rules (core/src/pii/validators.h), used to check
# every planted value.
# ---------------------------------------------------------------------------


def view(s):
    """The text as the detector reads it (core/src/pii/normalise.h): NFKC; decimal digits of any script as
    ASCII digits; format characters, variation selectors and marks on a digit dropped; space separators as
    " " and dashes (and U+2212 MINUS SIGN) as "-". The validator models below all read this view."""
    out, after_digit = [], False
    for ch in unicodedata.normalize("NFKC", s):
        cat = unicodedata.category(ch)
        if ord(ch) >= 0x80:
            if cat == "Cf" or 0xFE00 <= ord(ch) <= 0xFE0F or (cat in ("Mn", "Me") and after_digit):
                continue
            if cat == "Nd":
                ch = str(unicodedata.decimal(ch))
            elif cat == "Zs":
                ch = " "
            elif cat == "Pd" or ch == "\u2212":
                ch = "-"
        out.append(ch)
        after_digit = "0" <= ch <= "9"
    return "".join(out)


def luhn_ok(digits):
    if not digits or not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def luhn_digit(body):
    for d in "0123456789":
        if luhn_ok(body + d):
            return d
    raise AssertionError("unreachable")


def has_issuer_prefix(digits):
    def p(n):
        return int(digits[:n]) if len(digits) >= n else -1

    return (
        digits.startswith("4")
        or 51 <= p(2) <= 55
        or 2221 <= p(4) <= 2720
        or p(2) in (34, 37)
        or digits.startswith("6011")
        or 644 <= p(3) <= 649
        or digits.startswith("65")
        or 3528 <= p(4) <= 3589
        or 300 <= p(3) <= 305
        or p(2) in (36, 38, 39)
        or digits.startswith("62")
        or p(2) in (50, 56, 57, 58)
        or p(4) in (6304, 6759)
        or p(6) in (676770, 676774)
    )


# Groups joined by runs of spaces and single dashes, or by single dots only.
CARD_SHAPE = re.compile(r"^\d+(?:(?: +|-)\d+)*$|^\d+(?:\.\d+)*$")


def card_valid(s):
    s = view(s)
    if not CARD_SHAPE.match(s):
        return False
    digits = re.sub(r"[ .-]", "", s)
    return 13 <= len(digits) <= 19 and luhn_ok(digits) and has_issuer_prefix(digits)


def card_any_prefix_valid(s):
    """card_number_prefix: any cut at a separator (or the whole) that is valid."""
    s = view(s)
    cuts = [m.start() for m in re.finditer(r" +|[.-]", s)] + [len(s)]
    return any(card_valid(s[:c]) for c in cuts)


SSN_SHAPE = re.compile(r"^(\d{3})([- ]?)(\d{2})\2(\d{4})$")


def ssn_valid(s):
    m = SSN_SHAPE.match(view(s))
    if not m:
        return False
    area, group, serial = int(m.group(1)), int(m.group(3)), int(m.group(4))
    return area != 0 and area != 666 and area < 900 and group != 0 and serial != 0


IBAN_LENGTHS = {"DE": 22, "GB": 22, "FR": 27, "ES": 24, "IT": 27, "NL": 18, "BE": 16, "CH": 21, "AT": 20, "PL": 28}
# A few more countries the detector may know, for the decoy checks only.
IBAN_LENGTHS_ALL = dict(IBAN_LENGTHS, LU=20, IE=22, PT=25, DK=18, SE=24, NO=15, FI=18, CZ=24, HU=28)


def mod97(s):
    rearranged = s[4:] + s[:4]
    num = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(num) % 97


def iban_valid(s):
    compact = view(s).replace(" ", "")
    if not re.match(r"^[A-Z]{2}\d{2}[A-Z0-9]+$", compact):
        return False
    n = IBAN_LENGTHS_ALL.get(compact[:2])
    return n == len(compact) and mod97(compact) == 1


def iban_any_prefix_valid(s):
    compact = view(s).replace(" ", "")
    n = IBAN_LENGTHS_ALL.get(compact[:2])
    return n is not None and len(compact) >= n and iban_valid(compact[:n])


def ipv4_valid(s):
    parts = s.split(".")
    if len(parts) != 4:
        return False
    for p in parts:
        if not p.isdigit() or len(p) > 3 or (len(p) > 1 and p[0] == "0") or int(p) > 255:
            return False
    return True


def ipv6_valid(s):
    if s.count("::") > 1 or ":::" in s:
        return False
    hexd = set(string.hexdigits)

    def groups(part):
        if part == "":
            return []
        gs = part.split(":")
        for g in gs:
            if not (1 <= len(g) <= 4 and set(g) <= hexd):
                return None
        return gs

    if "::" in s:
        left, right = s.split("::")
        lg, rg = groups(left), groups(right)
        if lg is None or rg is None or len(lg) + len(rg) > 7:
            return False
        return len(lg) + len(rg) >= 3
    g = groups(s)
    return g is not None and len(g) == 8


def phone_groups(s):
    """The digit groups of a phone candidate and the set of separators between them ("(" and ")" aside)."""
    groups = re.findall(r"\d+", s)
    seps = set(re.findall(r"[ ./-]", re.sub(r"\(|\) ?| \(", "", s.lstrip("+"))))
    return [len(g) for g in groups], seps


def phone_valid(s):
    """phone_valid(): E.164 (or 00 and a European country code); NANP; European trunk-0 (10-11 digits, a
    German mobile's 12, a grouped 9-digit city line); Spanish 9 digits grouped; Italian mobiles 3xx grouped."""
    s = view(s)
    digits = re.sub(r"\D", "", s)
    if len(set(digits)) <= 1:
        return False
    if s.startswith("+"):
        return 8 <= len(digits) <= 15
    lens, seps = phone_groups(s)
    if digits.startswith("00"):  # 00 for "+", European country codes only
        return (len(lens) >= 3 and 4 <= lens[0] <= 5 and not s.startswith("(") and digits[2] in "34"
                and 8 <= len(digits) - 2 <= 13 and len(digits) <= 15)
    n, bare = len(digits), len(lens) == 1
    if len(seps) > 1:
        return False
    if digits[0] == "0":
        if digits[1] == "0" or not 9 <= n <= 12:
            return False
        de_mobile = digits[:3] in ("015", "016", "017")
        if bare:
            return 10 <= n <= 11 or (n == 12 and de_mobile)
        if not 2 <= lens[0] <= 5 or any(not (3 if n == 9 else 2) <= g <= 8 for g in lens[1:]):
            return False
        return n != 12 or (lens[0] == 4 and de_mobile)
    if bare:
        return False
    if n == 10 and digits[0] == "3" and digits[1] != "0" and lens in ([3, 3, 4], [3, 7], [3, 3, 2, 2]):
        return True  # Italian mobile
    if n == 9 and digits[0] in "6789" and "/" not in seps:
        return lens in ([3, 2, 2, 2], [3, 3, 3]) or (digits[0] in "89" and lens == [2, 3, 2, 2] and "." not in seps)
    if "/" in seps:
        return False
    nanp = (n == 10 and lens == [3, 3, 4]) or (n == 11 and digits[0] == "1" and lens == [1, 3, 3, 4])
    d = digits[-10:]
    return nanp and d[0] not in "01" and d[3] not in "01" and d[1:3] != "11"


EMAIL_SHAPE = re.compile(r"^([A-Za-z0-9._%+-]{1,64})@([A-Za-z0-9.-]{4,253})$")


def email_valid(s):
    m = EMAIL_SHAPE.match(view(s))
    if not m:
        return False
    local, domain = m.groups()
    if local.startswith(".") or local.endswith(".") or ".." in local:
        return False
    labels = domain.split(".")
    if len(labels) < 2:
        return False
    for lab in labels:
        if not (1 <= len(lab) <= 63) or lab.startswith("-") or lab.endswith("-"):
            return False
    return labels[-1].isalpha() and 2 <= len(labels[-1]) <= 24


MONTHS = {
    "en": ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"],
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
           "November", "Dezember"],
    "fr": ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
           "novembre", "décembre"],
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
           "noviembre", "diciembre"],
    "it": ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
           "ottobre", "novembre", "dicembre"],
}
MONTH_NUMBER = {}
for _names in MONTHS.values():
    for _i, _n in enumerate(_names):
        MONTH_NUMBER[_n.lower()] = _i + 1
        MONTH_NUMBER[_n.lower()[:3]] = _i + 1
DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def real_date(y, m, d):
    if not (1900 <= y <= 2030 and 1 <= m <= 12 and 1 <= d <= DAYS_IN_MONTH[m - 1]):
        return False
    if m == 2 and d == 29:
        return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    return True


def birth_date_valid(s):
    m = re.match(r"^(\d{4})-(\d{2})-(\d{2})$", s)
    if m:
        return real_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = re.match(r"^(\d{1,2})([./-])(\d{1,2})\2(\d{4})$", s)
    if m:
        a, b, y = int(m.group(1)), int(m.group(3)), int(m.group(4))
        return real_date(y, b, a) or (m.group(2) == "/" and real_date(y, a, b))
    words = re.findall(r"\w+", s.lower())
    nums = [int(w) for w in words if w.isdigit()]
    months = [MONTH_NUMBER[w] for w in words if w in MONTH_NUMBER]
    if len(nums) != 2 or len(months) != 1:
        return False
    day, year = (nums[0], nums[1]) if nums[1] > 31 else (nums[1], nums[0])
    return real_date(year, months[0], day)


# ---------------------------------------------------------------------------
# Filler (free of PII).
# ---------------------------------------------------------------------------

NAMES = {
    "en": ["Sarah Johnson", "Michael Brown", "Emily Carter", "David O'Neill", "Priya Patel", "James Wilson",
           "Olivia Martinez", "Daniel Kim", "Grace Thompson", "Liam Walsh", "Chloé Bennett", "Noah Anderson"],
    "de": ["Jürgen Müller", "Björn Schäfer", "Anna Schmidt", "Lena Weiß", "Tobias Hoffmann", "Sören Krüger",
           "Käthe Bauer", "Maximilian Groß", "Jörg Fischer", "Svenja Köhler", "Uwe Wagner", "Marie Schröder"],
    "fr": ["François Lefèvre", "Hélène Dubois", "Chloé Moreau", "Jérôme Girard", "Amélie Rousseau",
           "Benoît Lambert", "Léa Fontaine", "Étienne Mercier", "Maël Caron", "Inès Bonnet"],
    "es": ["José Martínez", "Begoña Núñez", "Lucía Fernández", "Álvaro Gómez", "María José Ruiz", "Íñigo Sánchez",
           "Carmen López", "Sofía Díaz", "Andrés Muñoz", "Nuria Castaño"],
    "it": ["Niccolò Bianchi", "Giulia Romano", "Lorenzo Ricci", "Chiara Esposito", "Matteo Colombo",
           "Francesca Bruno", "Andrea Gallo", "Federica Conti", "Nicolò De Luca", "Martina Mancini"],
    "nl": ["Sjoerd van der Berg", "Anouk de Vries", "Daniël Jansen", "Femke Bakker", "Joëlle Visser", "Bram Smit",
           "Thijs de Boer", "Sanne Mulder", "Ruben Meijer", "Eva Bos"],
}
CITIES = ["Berlin", "München", "Köln", "Paris", "Lyon", "Genève", "Madrid", "Sevilla", "Málaga", "Roma",
          "Milano", "Torino", "Amsterdam", "Rotterdam", "Utrecht", "London", "Dublin", "New York", "Zürich",
          "Wien", "Bruxelles", "Lisboa"]
COMPANIES = ["Acme Logistics", "Nordwind GmbH", "Lumière SARL", "Iberia Soluciones", "Fratelli Rossi",
             "Polder Tech B.V.", "Bluefin Analytics", "Kestrel Cloud", "Sonnenhof AG", "Café Crème"]
FLIGHTS = ["LH 2034", "AF 1145", "IB 3170", "AZ 608", "KL 1234", "BA 917", "UA 61", "LX 318"]

EMAIL_DOMAINS = {
    "en": ["gmail.com", "outlook.com", "yahoo.com", "acme-corp.com", "bluefin-analytics.io", "example.co.uk",
           "mail.kestrel.cloud", "proton.me", "hotmail.co.uk", "university.edu"],
    "de": ["gmx.de", "web.de", "t-online.de", "nordwind-gmbh.de", "uni-heidelberg.de", "posteo.de",
           "sonnenhof.ch", "firma.at"],
    "fr": ["orange.fr", "free.fr", "laposte.net", "lumiere-sarl.fr", "gmail.com", "univ-lyon1.fr", "sfr.fr"],
    "es": ["gmail.com", "telefonica.net", "correo.es", "iberia-soluciones.es", "hotmail.es", "uv.es"],
    "it": ["libero.it", "virgilio.it", "fratellirossi.it", "gmail.com", "tiscali.it", "polimi.it"],
    "nl": ["ziggo.nl", "kpnmail.nl", "polder-tech.nl", "gmail.com", "xs4all.nl", "uva.nl"],
}

FILLER = {
    "en": {
        "support": ["The app keeps logging me out every few minutes.", "I already tried reinstalling it.",
                    "This has been going on since last Tuesday.", "Could you look into it as soon as possible?",
                    "My order still hasn't arrived and the status page shows nothing."],
        "hr": ["I'm starting on the first of next month.", "Could you update my records, please?",
               "My manager already approved the change.", "I need this for the payroll run."],
        "dev": ["It works locally but fails in CI.", "We're on Python 3.11 and the latest SDK.",
                "The container restarts every couple of minutes.", "Any idea what I'm doing wrong?"],
        "travel": ["I'd prefer an aisle seat if possible.", "We are two adults and one child.",
                   "Please add one checked bag.", "Is breakfast included?"],
        "bank": ["The payment was rejected twice.", "I'd like to set up a standing order.",
                 "Please confirm once the money has been sent.", "The reference should be the invoice number."],
    },
    "de": {
        "support": ["Die App stürzt beim Öffnen der Einstellungen ab.", "Ich habe sie schon neu installiert.",
                    "Das Problem besteht seit letzter Woche.", "Könnten Sie sich das bitte ansehen?"],
        "hr": ["Ich fange am Ersten des nächsten Monats an.", "Bitte aktualisieren Sie meine Personalakte.",
               "Meine Vorgesetzte hat die Änderung schon genehmigt."],
        "dev": ["Lokal funktioniert es, aber in der CI schlägt es fehl.", "Hat jemand eine Idee?"],
        "travel": ["Ich hätte gern einen Fensterplatz.", "Wir reisen zu zweit mit einem Kind.",
                   "Ist das Frühstück inklusive?"],
        "bank": ["Die Überweisung wurde zweimal abgelehnt.", "Bitte bestätigen Sie den Zahlungseingang.",
                 "Als Verwendungszweck bitte die Rechnungsnummer angeben."],
    },
    "fr": {
        "support": ["L'application se ferme dès que j'ouvre les paramètres.", "J'ai déjà essayé de la réinstaller.",
                    "Le problème dure depuis la semaine dernière.", "Pourriez-vous regarder rapidement ?"],
        "hr": ["Je commence le premier du mois prochain.", "Merci de mettre à jour mon dossier.",
               "Mon responsable a déjà validé le changement."],
        "dev": ["Ça marche en local mais pas dans la CI.", "Une idée de ce qui cloche ?"],
        "travel": ["Je préférerais une place côté hublot.", "Nous sommes deux adultes et un enfant.",
                   "Le petit-déjeuner est-il inclus ?"],
        "bank": ["Le virement a été refusé deux fois.", "Merci de me confirmer la réception du paiement.",
                 "La référence doit être le numéro de facture."],
    },
    "es": {
        "support": ["La aplicación se cierra al abrir la configuración.", "Ya he probado a reinstalarla.",
                    "El problema empezó la semana pasada.", "¿Podrían revisarlo cuanto antes?"],
        "hr": ["Empiezo el día uno del mes que viene.", "Por favor, actualicen mis datos.",
               "Mi responsable ya aprobó el cambio."],
        "dev": ["En local funciona, pero en la CI falla.", "¿Alguna idea de qué está mal?"],
        "travel": ["Preferiría un asiento de pasillo.", "Somos dos adultos y un niño.",
                   "¿El desayuno está incluido?"],
        "bank": ["La transferencia ha sido rechazada dos veces.", "Por favor, confirmen la recepción del pago.",
                 "El concepto debe ser el número de factura."],
    },
    "it": {
        "support": ["L'app si chiude quando apro le impostazioni.", "Ho già provato a reinstallarla.",
                    "Il problema è iniziato la settimana scorsa.", "Potreste verificare al più presto?"],
        "hr": ["Inizio il primo del mese prossimo.", "Vi chiedo di aggiornare i miei dati.",
               "Il mio responsabile ha già approvato la modifica."],
        "dev": ["In locale funziona, ma nella CI fallisce.", "Qualche idea su cosa sbaglio?"],
        "travel": ["Preferirei un posto lato corridoio.", "Siamo due adulti e un bambino.",
                   "La colazione è inclusa?"],
        "bank": ["Il bonifico è stato rifiutato due volte.", "Vi prego di confermare la ricezione del pagamento.",
                 "La causale deve essere il numero di fattura."],
    },
    "nl": {
        "support": ["De app sluit af zodra ik de instellingen open.", "Ik heb hem al opnieuw geïnstalleerd.",
                    "Het probleem speelt sinds vorige week.", "Kunnen jullie hier snel naar kijken?"],
        "hr": ["Ik begin op de eerste van volgende maand.", "Willen jullie mijn gegevens bijwerken?",
               "Mijn leidinggevende heeft de wijziging al goedgekeurd."],
        "dev": ["Lokaal werkt het, maar in de CI faalt het.", "Iemand een idee wat er misgaat?"],
        "travel": ["Ik zou graag een stoel aan het gangpad hebben.", "We zijn met twee volwassenen en één kind.",
                   "Is het ontbijt inbegrepen?"],
        "bank": ["De overboeking is twee keer geweigerd.", "Graag een bevestiging zodra het geld binnen is.",
                 "Als omschrijving graag het factuurnummer vermelden."],
    },
}

INTROS = {
    "en": {
        "support": ["Hi support team,", "Hello,", "Hi there, I need help with my account.", "Good morning,"],
        "hr": ["Hi HR,", "Dear HR team,", "Hello {other_first},"],
        "dev": ["Hey, quick question about our deployment.", "Can someone help me debug this?",
                "Hi all, I'm stuck on an issue with {company}'s staging setup."],
        "travel": ["Hi, I'd like to book flight {flight} from {city} to {city2} on {date}.",
                   "Hello, I need to change my hotel booking in {city}."],
        "bank": ["Hello, this is about my transfer of {amount}.", "Dear {company} billing team,"],
    },
    "de": {
        "support": ["Hallo Support-Team,", "Guten Tag,", "Hallo, ich brauche Hilfe mit meinem Konto."],
        "hr": ["Liebes HR-Team,", "Hallo {other_first},", "Sehr geehrte Damen und Herren,"],
        "dev": ["Hi, kurze Frage zu unserem Deployment.", "Kann mir jemand beim Debuggen helfen?"],
        "travel": ["Hallo, ich möchte den Flug {flight} von {city} nach {city2} am {date} buchen.",
                   "Guten Tag, ich muss meine Hotelbuchung in {city} ändern."],
        "bank": ["Guten Tag, es geht um meine Überweisung über {amount}.", "Sehr geehrtes Team von {company},"],
    },
    "fr": {
        "support": ["Bonjour l'équipe support,", "Bonjour,", "Bonjour, j'ai besoin d'aide avec mon compte."],
        "hr": ["Bonjour l'équipe RH,", "Bonjour {other_first},", "Madame, Monsieur,"],
        "dev": ["Salut, petite question sur notre déploiement.", "Quelqu'un peut m'aider à déboguer ça ?"],
        "travel": ["Bonjour, je souhaite réserver le vol {flight} de {city} à {city2} le {date}.",
                   "Bonjour, je dois modifier ma réservation d'hôtel à {city}."],
        "bank": ["Bonjour, je vous écris au sujet de mon virement de {amount}.", "Chère équipe {company},"],
    },
    "es": {
        "support": ["Hola, equipo de soporte:", "Buenos días:", "Hola, necesito ayuda con mi cuenta."],
        "hr": ["Hola, equipo de RR. HH.:", "Hola, {other_first}:", "Estimados señores:"],
        "dev": ["Hola, una pregunta rápida sobre nuestro despliegue.", "¿Alguien me ayuda a depurar esto?"],
        "travel": ["Hola, quiero reservar el vuelo {flight} de {city} a {city2} el {date}.",
                   "Buenos días, necesito cambiar mi reserva de hotel en {city}."],
        "bank": ["Buenos días, les escribo por mi transferencia de {amount}.", "Estimado equipo de {company}:"],
    },
    "it": {
        "support": ["Ciao team di supporto,", "Buongiorno,", "Salve, ho bisogno di aiuto con il mio account."],
        "hr": ["Gentile ufficio HR,", "Ciao {other_first},", "Gentili signori,"],
        "dev": ["Ciao, domanda veloce sul nostro deploy.", "Qualcuno mi aiuta a fare il debug?"],
        "travel": ["Buongiorno, vorrei prenotare il volo {flight} da {city} a {city2} il {date}.",
                   "Salve, devo modificare la prenotazione dell'hotel a {city}."],
        "bank": ["Buongiorno, vi scrivo per il mio bonifico di {amount}.", "Gentile team di {company},"],
    },
    "nl": {
        "support": ["Hallo supportteam,", "Goedemorgen,", "Hoi, ik heb hulp nodig met mijn account."],
        "hr": ["Beste HR-afdeling,", "Hoi {other_first},", "Geachte heer/mevrouw,"],
        "dev": ["Hoi, korte vraag over onze deployment.", "Kan iemand me helpen dit te debuggen?"],
        "travel": ["Hallo, ik wil vlucht {flight} van {city} naar {city2} op {date} boeken.",
                   "Goedemiddag, ik moet mijn hotelboeking in {city} wijzigen."],
        "bank": ["Goedendag, het gaat om mijn overboeking van {amount}.", "Beste team van {company},"],
    },
}

OUTROS = {
    "en": ["Thanks, {first}", "Best regards,\n{name}", "Cheers!", "Thanks in advance.", ""],
    "de": ["Danke, {first}", "Viele Grüße\n{name}", "Mit freundlichen Grüßen\n{name}", ""],
    "fr": ["Merci, {first}", "Cordialement,\n{name}", "Bien à vous.", ""],
    "es": ["Gracias, {first}", "Un saludo,\n{name}", "Atentamente,\n{name}", ""],
    "it": ["Grazie, {first}", "Cordiali saluti,\n{name}", "A presto!", ""],
    "nl": ["Bedankt, {first}", "Met vriendelijke groet,\n{name}", "Groetjes!", ""],
}

# ---------------------------------------------------------------------------
# Clause templates. "{v}" is the planted value; other {names} are filler.
# ---------------------------------------------------------------------------

T = {}

T["card"] = {
    "en": ["My card number is {v}, expiry {exp}.", "Please charge {v} for the booking.",
           "I paid with the card {v} but got charged twice.", "Card: {v} (exp {exp})",
           "Can you refund it to the Visa/Mastercard ending in the number {v}?",
           "The card on file is {v} — please update it.",
           "The request body was `{\"card_number\": \"{v}\", \"exp\": \"{exp}\"}` and it returned 402.",
           "Card {v} exp {exp} keeps getting declined.",
           "Here's what I have on file:\n\n| type | number | expiry |\n|---|---|---|\n| credit | {v} | {exp} |\n"],
    "de": ["Meine Kartennummer lautet {v}, gültig bis {exp}.", "Bitte belasten Sie meine Kreditkarte {v}.",
           "Ich habe mit der Karte {v} bezahlt, aber doppelt abgebucht bekommen.", "Kreditkarte: {v}"],
    "fr": ["Mon numéro de carte est le {v}, expiration {exp}.", "Merci de débiter la carte {v}.",
           "J'ai payé avec la carte {v} mais j'ai été débité deux fois.", "Carte bancaire : {v}"],
    "es": ["Mi número de tarjeta es {v}, caduca {exp}.", "Por favor, carguen el importe a la tarjeta {v}.",
           "Pagué con la tarjeta {v} y me cobraron dos veces.", "Tarjeta: {v}"],
    "it": ["Il numero della mia carta è {v}, scadenza {exp}.", "Addebitate pure sulla carta {v}.",
           "Ho pagato con la carta {v} ma l'addebito è doppio.", "Carta di credito: {v}"],
    "nl": ["Mijn kaartnummer is {v}, geldig tot {exp}.", "Graag afschrijven van creditcard {v}.",
           "Ik heb betaald met kaart {v} maar er is twee keer afgeschreven.", "Creditcard: {v}"],
}
T["card_decoy_order"] = {
    "en": ["Your order #{v} has shipped.", "Tracking number: {v}", "Invoice no. {v} is attached.",
           "Reference {v} — please quote it in any reply.", "The parcel with tracking ID {v} is stuck in customs."],
    "de": ["Ihre Bestellnummer {v} wurde versandt.", "Sendungsnummer: {v}", "Rechnungsnummer {v} liegt bei.",
           "Das Paket mit der Sendungsnummer {v} hängt im Zoll fest."],
    "fr": ["Numéro de suivi : {v}", "Votre commande n° {v} a été expédiée.", "Facture n° {v} en pièce jointe."],
    "es": ["Número de seguimiento: {v}", "Su pedido n.º {v} ha sido enviado.", "Adjunto la factura n.º {v}."],
    "it": ["Numero di tracciamento: {v}", "Il tuo ordine n. {v} è stato spedito.", "In allegato la fattura n. {v}."],
    "nl": ["Trackingnummer: {v}", "Je bestelling {v} is verzonden.", "Factuurnummer {v} zit in de bijlage."],
}
T["card_decoy_long"] = {
    "en": ["The DHL tracking number is {v}.", "SSCC {v} was scanned at the depot.", "Transaction ID: {v}"],
    "de": ["Die DHL-Sendungsnummer lautet {v}.", "Transaktions-ID: {v}"],
    "fr": ["Le numéro de colis est {v}.", "ID de transaction : {v}"],
    "es": ["El número de envío es {v}.", "ID de transacción: {v}"],
    "it": ["Il numero della spedizione è {v}.", "ID transazione: {v}"],
    "nl": ["Het zendingsnummer is {v}.", "Transactie-ID: {v}"],
}
T["card_decoy_imei"] = {
    "en": ["The phone's IMEI is {v}.", "IMEI: {v}", "Device IMEI {v} shows as blocked."],
    "de": ["Die IMEI des Handys ist {v}.", "IMEI: {v}"],
    "fr": ["L'IMEI du téléphone est {v}.", "IMEI : {v}"],
    "es": ["El IMEI del móvil es {v}.", "IMEI: {v}"],
    "it": ["L'IMEI del telefono è {v}.", "IMEI: {v}"],
    "nl": ["Het IMEI-nummer van de telefoon is {v}.", "IMEI: {v}"],
}
T["card_decoy_gift"] = {
    "en": ["The gift card code {v} says it's already been redeemed.", "Loyalty card no. {v}",
           "Membership number: {v}"],
    "de": ["Der Gutscheincode {v} wird als bereits eingelöst angezeigt.", "Kundenkartennummer: {v}"],
    "fr": ["Le code de la carte cadeau {v} est déjà utilisé.", "Numéro de carte fidélité : {v}"],
    "es": ["El código de la tarjeta regalo {v} aparece como canjeado.", "Número de socio: {v}"],
    "it": ["Il codice della gift card {v} risulta già usato.", "Numero tessera fedeltà: {v}"],
    "nl": ["De cadeaukaartcode {v} is al verzilverd.", "Klantenkaartnummer: {v}"],
}

# SSN: "tight" puts the value right after the keyword (plain 9 digits only
# there); "loose" has the keyword further away or none (dashed only).
T["ssn_tight"] = {
    "en": ["My SSN: {v}", "SSN {v}", "Social Security Number: {v}", "social security number {v}",
           "SSN#{v}", "Please update the SSN: {v} on my W-2.", "Employee {name}, SSN: {v}."],
    "de": ["Die US-Sozialversicherungsnummer, SSN: {v}", "Für das US-Formular: SSN {v}"],
    "fr": ["Pour le formulaire américain, SSN : {v}", "Social Security Number: {v}"],
    "es": ["Para el formulario de EE. UU., SSN: {v}", "SSN {v}"],
    "it": ["Per il modulo statunitense, SSN: {v}", "SSN {v}"],
    "nl": ["Voor het Amerikaanse formulier, SSN: {v}", "SSN {v}"],
}
T["ssn_loose"] = {
    "en": ["My social security number is {v}, if you need it for the background check.",
           "Payroll record: {name}, {v}, direct deposit.", "For the tax form, my SSN is {v}."],
    "de": ["Meine amerikanische Sozialversicherungsnummer ist {v}.", "Die SSN meines Mannes lautet {v}."],
    "fr": ["Mon numéro de sécurité sociale américain est le {v}."],
    "es": ["Mi número de seguro social de EE. UU. es {v}."],
    "it": ["Il mio numero di previdenza sociale americano è {v}."],
    "nl": ["Mijn Amerikaanse social security number is {v}."],
}
T["ssn_decoy_context"] = {
    "en": ["The form example shows SSN: {v}", "It rejected SSN {v} as invalid, which is right.",
           "Test account, SSN: {v} (dummy value)."],
    "de": ["Im Musterformular steht SSN: {v}"],
    "fr": ["Le formulaire d'exemple indique SSN : {v}"],
    "es": ["El formulario de ejemplo pone SSN: {v}"],
    "it": ["Il modulo di esempio riporta SSN: {v}"],
    "nl": ["Het voorbeeldformulier toont SSN: {v}"],
}
T["ssn_decoy_part"] = {
    "en": ["Part no. {v} is out of stock.", "Case reference {v} was closed.", "Batch {v} failed QA."],
    "de": ["Teilenummer {v} ist nicht lieferbar.", "Vorgang {v} wurde geschlossen."],
    "fr": ["La pièce réf. {v} est en rupture.", "Dossier {v} clôturé."],
    "es": ["La pieza ref. {v} está agotada.", "Expediente {v} cerrado."],
    "it": ["Il codice articolo {v} è esaurito.", "Pratica {v} chiusa."],
    "nl": ["Onderdeelnummer {v} is niet op voorraad.", "Dossier {v} is gesloten."],
}
T["ssn_decoy_plain"] = {
    "en": ["Order {v} was delivered.", "Customer number {v}", "Your confirmation code is {v}."],
    "de": ["Kundennummer {v}", "Auftrag {v} wurde zugestellt."],
    "fr": ["Numéro client {v}", "Commande {v} livrée."],
    "es": ["Número de cliente {v}", "Pedido {v} entregado."],
    "it": ["Codice cliente {v}", "Ordine {v} consegnato."],
    "nl": ["Klantnummer {v}", "Bestelling {v} is bezorgd."],
}

T["iban"] = {
    "en": ["Please transfer the refund to IBAN {v}.", "My IBAN: {v} (BIC {bic})",
           "Account holder {name}, IBAN {v}", "Send it to {v}, account in my name.",
           "The salary should go to {v} from next month."],
    "de": ["Bitte überweisen Sie die Erstattung auf mein Konto, IBAN {v}.", "IBAN: {v}, BIC: {bic}",
           "Kontoinhaber {name}, IBAN {v}", "Mein Gehalt bitte ab sofort auf {v} überweisen.",
           "Bankverbindung: IBAN {v} BIC {bic}", "Bitte auf mein Girokonto (IBAN {v}) zurücküberweisen."],
    "fr": ["Merci de virer le remboursement sur l'IBAN {v}.", "IBAN : {v} — BIC : {bic}",
           "Titulaire du compte : {name}, IBAN {v}"],
    "es": ["Por favor, hagan la transferencia al IBAN {v}.", "IBAN: {v}, BIC: {bic}",
           "Titular de la cuenta: {name}, IBAN {v}"],
    "it": ["Vi prego di effettuare il bonifico sull'IBAN {v}.", "IBAN: {v} (BIC {bic})",
           "Intestatario: {name}, IBAN {v}"],
    "nl": ["Graag het bedrag overmaken naar IBAN {v}.", "IBAN: {v}, BIC: {bic}",
           "Rekeninghouder {name}, IBAN {v}"],
}
T["iban_decoy"] = {
    "en": ["The bank says IBAN {v} is invalid — I must have mistyped it.", "Is {v} the right IBAN format?",
           "The import rejected IBAN {v} with a checksum error."],
    "de": ["Die Bank meldet, dass die IBAN {v} ungültig ist.", "Ist {v} das richtige IBAN-Format?"],
    "fr": ["La banque indique que l'IBAN {v} est invalide.", "Est-ce que {v} est le bon format d'IBAN ?"],
    "es": ["El banco dice que el IBAN {v} no es válido.", "¿Es {v} el formato correcto de IBAN?"],
    "it": ["La banca dice che l'IBAN {v} non è valido.", "{v} è il formato giusto per l'IBAN?"],
    "nl": ["De bank zegt dat IBAN {v} ongeldig is.", "Is {v} het juiste IBAN-formaat?"],
}

T["ipv4"] = {
    "en": ["I can't connect from my home IP {v}.", "The server at {v} returns 502 Bad Gateway.",
           "Please whitelist {v} for the VPN.", "Log: `Failed password for root from {v} port 51234 ssh2`",
           "curl http://{v}:8080/health times out."],
    "de": ["Meine IP-Adresse ist {v}.", "Bitte schalten Sie {v} für das VPN frei.",
           "Der Server unter {v} antwortet nicht."],
    "fr": ["Mon adresse IP est {v}.", "Merci d'autoriser {v} sur le VPN.", "Le serveur {v} ne répond plus."],
    "es": ["Mi dirección IP es {v}.", "Por favor, añadan {v} a la lista blanca.", "El servidor {v} no responde."],
    "it": ["Il mio indirizzo IP è {v}.", "Aggiungete {v} alla whitelist, per favore.",
           "Il server {v} non risponde."],
    "nl": ["Mijn IP-adres is {v}.", "Willen jullie {v} whitelisten?", "De server op {v} reageert niet."],
}
T["ipv6"] = {
    "en": ["My IPv6 address is {v}.", "Requests from {v} are being rate limited.",
           "nginx log: `{v} - - \"GET /api/v1/users HTTP/1.1\" 403`", "Please allow {v} in the firewall."],
    "de": ["Meine IPv6-Adresse ist {v}.", "Anfragen von {v} werden blockiert."],
    "fr": ["Mon adresse IPv6 est {v}.", "Les requêtes depuis {v} sont bloquées."],
    "es": ["Mi dirección IPv6 es {v}.", "Las peticiones desde {v} se bloquean."],
    "it": ["Il mio indirizzo IPv6 è {v}.", "Le richieste da {v} vengono bloccate."],
    "nl": ["Mijn IPv6-adres is {v}.", "Verzoeken vanaf {v} worden geblokkeerd."],
}
T["ip_decoy_version"] = {
    "en": ["We upgraded to version {v} yesterday.", "Build {v} fails on startup.", "It broke after release {v}.",
           "pip says the installed version is {v}."],
    "de": ["Seit Version {v} startet es nicht mehr.", "Build {v} schlägt fehl."],
    "fr": ["Depuis la version {v}, ça ne démarre plus.", "Le build {v} échoue."],
    "es": ["Desde la versión {v} ya no arranca.", "La build {v} falla."],
    "it": ["Dalla versione {v} non parte più.", "La build {v} fallisce."],
    "nl": ["Sinds versie {v} start het niet meer.", "Build {v} faalt."],
}
T["ip_decoy_quad"] = {
    "en": ["The config has `host: {v}`, which obviously can't work.", "Someone typed {v} as the gateway address.",
           "Section {v} of the spec covers this."],
    "de": ["In der Config steht `host: {v}`, das kann nicht gehen.", "Abschnitt {v} der Spezifikation."],
    "fr": ["La config contient `host: {v}`, ça ne peut pas marcher.", "Voir la section {v} de la spec."],
    "es": ["La config tiene `host: {v}`, eso no puede funcionar.", "Ver el apartado {v} de la especificación."],
    "it": ["Nella config c'è `host: {v}`, non può funzionare.", "Vedi la sezione {v} della specifica."],
    "nl": ["In de config staat `host: {v}`, dat kan niet werken.", "Zie paragraaf {v} van de spec."],
}
T["ip_decoy_code"] = {
    "en": ["Why does `{v}` not compile here?", "The stack trace ends in `{v}`.", "I replaced it with `{v}`.",
           "Compiler error:\n```\nerror: no member named 'size' in '{v}'\n```"],
    "de": ["Warum kompiliert `{v}` hier nicht?", "Der Stacktrace endet in `{v}`."],
    "fr": ["Pourquoi `{v}` ne compile pas ici ?", "La pile d'appels se termine dans `{v}`."],
    "es": ["¿Por qué `{v}` no compila aquí?", "La traza termina en `{v}`."],
    "it": ["Perché `{v}` non compila qui?", "Lo stack trace finisce in `{v}`."],
    "nl": ["Waarom compileert `{v}` hier niet?", "De stacktrace eindigt in `{v}`."],
}
T["ip_decoy_mac"] = {
    "en": ["The device MAC is {v}.", "DHCP lease for {v} expired."],
    "de": ["Die MAC-Adresse ist {v}."],
    "fr": ["L'adresse MAC est {v}."],
    "es": ["La MAC del equipo es {v}."],
    "it": ["Il MAC del dispositivo è {v}."],
    "nl": ["Het MAC-adres is {v}."],
}
T["ip_decoy_time"] = {
    "en": ["The job ran at {v} and failed.", "Timestamps jump from {v} to midnight."],
    "de": ["Der Job lief um {v} und schlug fehl."],
    "fr": ["La tâche a tourné à {v} et a échoué."],
    "es": ["La tarea se ejecutó a las {v} y falló."],
    "it": ["Il job è partito alle {v} ed è fallito."],
    "nl": ["De job draaide om {v} en faalde."],
}
T["ip_decoy_local"] = {
    "en": ["It listens on {v} only.", "The service binds to `{v}` by default."],
    "de": ["Der Dienst lauscht nur auf {v}."],
    "fr": ["Le service écoute uniquement sur {v}."],
    "es": ["El servicio solo escucha en {v}."],
    "it": ["Il servizio ascolta solo su {v}."],
    "nl": ["De service luistert alleen op {v}."],
}

T["phone"] = {
    "en": ["Call me at {v}.", "My number: {v}", "You can reach me on {v} after 5pm.", "Mobile: {v}",
           "Please call back on {v} regarding ticket {ticket}."],
    "de": ["Sie erreichen mich unter {v}.", "Meine Telefonnummer: {v}", "Rückruf bitte unter {v}."],
    "fr": ["Vous pouvez me joindre au {v}.", "Mon numéro : {v}", "Rappelez-moi au {v} s'il vous plaît."],
    "es": ["Puede llamarme al {v}.", "Mi teléfono: {v}", "Por favor, llámenme al {v}."],
    "it": ["Mi può chiamare al {v}.", "Il mio numero: {v}", "Richiamatemi al {v}, grazie."],
    "nl": ["Je kunt me bereiken op {v}.", "Mijn telefoonnummer: {v}", "Bel me terug op {v}."],
}
T["phone_decoy_same"] = {
    "en": ["The form pre-fills the phone field with {v}.", "Ignore the placeholder {v} in the template.",
           "Test number {v} keeps getting accepted."],
    "de": ["Das Formular füllt das Telefonfeld mit {v} vor.", "Der Platzhalter {v} steht noch in der Vorlage."],
    "fr": ["Le formulaire pré-remplit le téléphone avec {v}.", "Ignorez le numéro fictif {v}."],
    "es": ["El formulario rellena el teléfono con {v}.", "Ignoren el número de prueba {v}."],
    "it": ["Il modulo precompila il telefono con {v}.", "Ignorate il numero segnaposto {v}."],
    "nl": ["Het formulier vult het telefoonveld met {v}.", "Negeer het voorbeeldnummer {v}."],
}
T["phone_decoy_price"] = {
    "en": ["The total was {v}.", "I was charged {v} instead of the quoted price.", "Budget: {v} per year."],
    "de": ["Der Gesamtbetrag lag bei {v}.", "Mir wurden {v} berechnet.", "Das Budget beträgt {v} pro Jahr."],
    "fr": ["Le total était de {v}.", "On m'a facturé {v} au lieu du prix annoncé."],
    "es": ["El total fue de {v}.", "Me cobraron {v} en lugar del precio acordado."],
    "it": ["Il totale era {v}.", "Mi hanno addebitato {v} invece del prezzo concordato."],
    "nl": ["Het totaal was {v}.", "Er is {v} afgeschreven in plaats van de afgesproken prijs."],
}
T["phone_decoy_isbn"] = {
    "en": ["The ISBN is {v}.", "Could you check if ISBN {v} is in stock?"],
    "de": ["Die ISBN lautet {v}."],
    "fr": ["L'ISBN est {v}."],
    "es": ["El ISBN es {v}."],
    "it": ["L'ISBN è {v}."],
    "nl": ["Het ISBN is {v}."],
}
T["phone_decoy_ref"] = {
    "en": ["Your customer number is {v}.", "Order {v} has shipped.", "Ticket {v} is still open."],
    "de": ["Ihre Kundennummer lautet {v}.", "Die Bestellung {v} ist unterwegs.", "Vorgang {v} ist noch offen."],
    "fr": ["Votre numéro client est {v}.", "La commande {v} a été expédiée."],
    "es": ["Su número de cliente es {v}.", "El pedido {v} ya salió."],
    "it": ["Il suo codice cliente è {v}.", "L'ordine {v} è stato spedito."],
    "nl": ["Uw klantnummer is {v}.", "Bestelling {v} is verzonden."],
}
T["phone_decoy_ts"] = {
    "en": ["The log shows `ts={v}` for the failed request.", "The event has timestamp {v}."],
    "de": ["Im Log steht `ts={v}`."],
    "fr": ["Le log indique `ts={v}`."],
    "es": ["El log muestra `ts={v}`."],
    "it": ["Nel log c'è `ts={v}`."],
    "nl": ["In de log staat `ts={v}`."],
}

T["email"] = {
    "en": ["My email is {v}.", "Please reply to <{v}>.", "CC {v} on the ticket, please.",
           "You can send the invoice to {v}", "From: {name} <{v}>", "I changed my login to {v} last week.",
           "[Email me](mailto:{v}) if anything is missing."],
    "de": ["Meine E-Mail-Adresse lautet {v}.", "Bitte antworten Sie an <{v}>.", "Rechnung bitte an {v} senden."],
    "fr": ["Mon adresse e-mail est {v}.", "Merci de répondre à <{v}>.", "Envoyez la facture à {v}, svp."],
    "es": ["Mi correo es {v}.", "Por favor, respondan a <{v}>.", "Envíen la factura a {v}."],
    "it": ["La mia e-mail è {v}.", "Rispondete a <{v}>, per favore.", "Inviate la fattura a {v}."],
    "nl": ["Mijn e-mailadres is {v}.", "Graag antwoorden naar <{v}>.", "Stuur de factuur naar {v}."],
}
T["email_decoy"] = {
    "en": ["Locally it sends as `{v}`.", "The log shows `{v}` as the sender.", "I tagged {v} in the thread.",
           "We use `{v}` in the code."],
    "de": ["Lokal wird als `{v}` gesendet.", "Im Log steht `{v}` als Absender."],
    "fr": ["En local, ça part en tant que `{v}`.", "Le log montre `{v}` comme expéditeur."],
    "es": ["En local se envía como `{v}`.", "El log muestra `{v}` como remitente."],
    "it": ["In locale invia come `{v}`.", "Nel log il mittente è `{v}`."],
    "nl": ["Lokaal wordt verstuurd als `{v}`.", "De log toont `{v}` als afzender."],
}

T["dob_decoy_date"] = {
    "en": ["The meeting is on {v} at 14:30.", "Invoice dated {v}, due in 30 days.", "Delivery expected {v}.",
           "The contract ends on {v}."],
    "de": ["Rechnungsdatum: {v}", "Die Lieferung kommt am {v}.", "Der Vertrag endet am {v}."],
    "fr": ["Date de livraison : {v}", "La facture est datée du {v}.", "Le contrat se termine le {v}."],
    "es": ["Fecha de entrega: {v}", "La factura tiene fecha {v}.", "El contrato termina el {v}."],
    "it": ["Data di consegna: {v}", "La fattura è del {v}.", "Il contratto scade il {v}."],
    "nl": ["Leverdatum: {v}", "De factuur is gedateerd {v}.", "Het contract loopt af op {v}."],
}
T["dob_decoy_log"] = {
    "en": ["Log line: `{v} ERROR worker timeout`", "The backup finished at {v}.",
           "Last login: {v} from the web app."],
}

# Per-language lead-ins for code snippets.
CODE_LEADS = {
    "en": ["Here's my config:", "This is the snippet that fails:", "Relevant part of the script:",
           "Output of the command:"],
    "de": ["Hier ist meine Konfiguration:", "Das ist der fehlerhafte Ausschnitt:", "Ausgabe des Befehls:"],
    "fr": ["Voici ma configuration :", "Voici l'extrait qui plante :", "Sortie de la commande :"],
    "es": ["Esta es mi configuración:", "Este es el fragmento que falla:", "Salida del comando:"],
    "it": ["Ecco la mia configurazione:", "Questo è il pezzo che fallisce:", "Output del comando:"],
    "nl": ["Dit is mijn configuratie:", "Dit stukje faalt:", "Uitvoer van het commando:"],
}

# ---------------------------------------------------------------------------
# Value generators. Each returns (text, kind) or, for secrets and dates that
# bring their own context, a list of pieces (see Builder.pieces).
# ---------------------------------------------------------------------------

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
B64URL = string.ascii_letters + string.digits + "-_"


def rand_digits(rng, n, first=None):
    s = first if first is not None else rng.choice("0123456789")
    return s + "".join(rng.choice("0123456789") for _ in range(n - len(s)))


def mixed(rng, alphabet, n):
    """n characters from alphabet containing at least one letter and one digit."""
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s) and s[-1] not in "-_":
            return s


CARD_BRANDS = [
    # name, prefix chooser, lengths, weight
    ("visa", lambda r: "4", [16] * 12 + [13, 19], 30),
    ("mastercard", lambda r: str(r.randint(51, 55)), [16], 18),
    ("mastercard2", lambda r: str(r.randint(2221, 2720)), [16], 8),
    ("amex", lambda r: r.choice(["34", "37"]), [15], 12),
    ("discover", lambda r: r.choice(["6011", str(r.randint(644, 649)), "65"]), [16], 9),
    ("jcb", lambda r: str(r.randint(3528, 3589)), [16], 7),
    ("diners", lambda r: r.choice([str(r.randint(300, 305)), "36", "38", "39"]), [14], 6),
    ("unionpay", lambda r: "62", [16, 17, 18, 19], 7),
]


def group_card(digits, brand, sep):
    n = len(digits)
    if brand == "amex" and n == 15:
        sizes = [4, 6, 5]
    elif brand == "diners" and n == 14:
        sizes = [4, 6, 4]
    elif n == 19:
        sizes = [4, 4, 4, 4, 3]
    else:
        sizes = [4] * (n // 4) + ([n % 4] if n % 4 else [])
    out, i = [], 0
    for s in sizes:
        out.append(digits[i:i + s])
        i += s
    return sep.join(out)


def gen_card(rng, lang):
    brand = rng.choices([b[0] for b in CARD_BRANDS], weights=[b[3] for b in CARD_BRANDS])[0]
    _, pref, lengths, _ = next(b for b in CARD_BRANDS if b[0] == brand)
    n = rng.choice(lengths)
    body = rand_digits(rng, n - 1, pref(rng))
    digits = body + luhn_digit(body)
    style = rng.choices(["plain", "space", "dash"], weights=[35, 50, 15])[0] if n != 13 else "plain"
    text = digits if style == "plain" else group_card(digits, brand, " " if style == "space" else "-")
    assert card_valid(text), text
    return text, f"card/{brand}/{style}"


NO_ISSUER_FIRST = ["1", "7", "8", "9", "0", "20", "21", "28", "29", "31", "32", "33", "306", "309"]


def gen_card_decoy(rng, lang):
    r = rng.random()
    if r < 0.12:
        # A digit run longer than any card (20-24 digits), Luhn-valid cards inside it.
        while True:
            digits = rand_digits(rng, rng.choice([20, 20, 22, 24]), rng.choice(["00", "4", "5", "3"]))
            if any(card_valid(digits[i:i + 16]) for i in range(len(digits) - 15)):
                break
        return digits, "card/long_run", "card_decoy_long"
    if r < 0.5:
        # 16-digit order/tracking number failing Luhn, often with an issuer-like prefix.
        while True:
            first = rng.choice(["4", "5", "37", "6011", "1", "2", "3", "7", "8", "9"])
            digits = rand_digits(rng, 16, first)
            if not luhn_ok(digits):
                break
        style = rng.choices(["plain", "space", "dash"], weights=[60, 30, 10])[0]
        text = digits if style == "plain" else group_card(digits, "", " " if style == "space" else "-")
        kind, group = "card/luhn_fail/" + style, "card_decoy_order"
    elif r < 0.75:
        # Luhn-valid, 16 digits, no issuer prefix.
        body = rand_digits(rng, 15, rng.choice(NO_ISSUER_FIRST))
        digits = body + luhn_digit(body)
        style = rng.choices(["plain", "space"], weights=[70, 30])[0]
        text = digits if style == "plain" else group_card(digits, "", " ")
        kind = "card/no_issuer/" + style
        group = rng.choice(["card_decoy_order", "card_decoy_gift"])
    else:
        # IMEI: 15 digits, Luhn-valid, type allocation codes without an issuer prefix.
        body = rand_digits(rng, 14, rng.choice(["86", "01", "99", "1", "7", "8"]))
        text = body + luhn_digit(body)
        kind, group = "card/imei", "card_decoy_imei"
    assert not card_any_prefix_valid(text), text
    return text, kind, group


def gen_ssn_parts(rng):
    while True:
        area = rng.randint(1, 899)
        if area != 666:
            break
    return f"{area:03d}", f"{rng.randint(1, 99):02d}", f"{rng.randint(1, 9999):04d}"


def gen_ssn(rng, lang):
    a, g, s = gen_ssn_parts(rng)
    style = rng.choices(["dash", "space", "plain"], weights=[55, 20, 25])[0]
    if style == "dash":
        text = f"{a}-{g}-{s}"
        group = rng.choice(["ssn_tight", "ssn_loose"])
    elif style == "space":
        text, group = f"{a} {g} {s}", "ssn_tight"
    else:
        text, group = f"{a}{g}{s}", "ssn_tight"
    assert ssn_valid(text)
    return text, f"ssn/{style}", group


def gen_ssn_decoy(rng, lang, allow_plain=True):
    a, g, s = gen_ssn_parts(rng)
    whys = ["area000", "area666", "area9xx", "group00", "serial0000"]
    why = rng.choice(whys + (["plain_no_context"] if allow_plain else []))
    if why == "area000":
        a = "000"
    elif why == "area666":
        a = "666"
    elif why == "area9xx":
        a = str(rng.randint(900, 999))
    elif why == "group00":
        g = "00"
    elif why == "serial0000":
        s = "0000"
    if why == "plain_no_context":
        text = f"{a}{g}{s}"
        group = "ssn_decoy_plain"
        kind = "ssn/plain_no_context"
    else:
        sep = rng.choices(["-", " "], weights=[80, 20])[0]
        text = f"{a}{sep}{g}{sep}{s}"
        assert not ssn_valid(text)
        group = rng.choice(["ssn_decoy_context", "ssn_decoy_part"])
        kind = "ssn/" + why
    return text, kind, group


def iban_bban(rng, cc):
    d = lambda n: rand_digits(rng, n)  # noqa: E731
    up = lambda n: "".join(rng.choice(string.ascii_uppercase) for _ in range(n))  # noqa: E731
    if cc == "DE":
        return d(8) + d(10)
    if cc == "GB":
        return rng.choice(["NWBK", "BARC", "LOYD", "HBUK", "MIDL"]) + d(6) + d(8)
    if cc == "FR":
        return d(5) + d(5) + d(10) + rng.choice(string.digits + string.ascii_uppercase) + d(2)
    if cc == "ES":
        return d(20)
    if cc == "IT":
        return up(1) + d(5) + d(5) + d(12)
    if cc == "NL":
        return rng.choice(["ABNA", "INGB", "RABO", "SNSB", "TRIO", "KNAB"]) + d(10)
    if cc == "BE":
        return d(12)
    if cc == "CH":
        return d(5) + d(12)
    if cc == "AT":
        return d(5) + d(11)
    if cc == "PL":
        return d(24)
    raise ValueError(cc)


def iban_with_check(cc, bban):
    check = 98 - mod97(cc + "00" + bban)
    return f"{cc}{check:02d}{bban}"


def print_iban(compact, grouped):
    if not grouped:
        return compact
    return " ".join(compact[i:i + 4] for i in range(0, len(compact), 4))


IBAN_FOR_LANG = {"de": ["DE", "AT", "CH"], "fr": ["FR", "BE", "CH"], "es": ["ES"], "it": ["IT", "CH"],
                 "nl": ["NL", "BE"], "en": ["GB", "DE", "FR", "ES", "IT", "NL", "BE", "CH", "AT", "PL"]}


def pick_iban_country(rng, lang):
    if rng.random() < 0.6:
        return rng.choice(IBAN_FOR_LANG[lang])
    return rng.choice(sorted(IBAN_LENGTHS))


def gen_iban(rng, lang):
    cc = pick_iban_country(rng, lang)
    compact = iban_with_check(cc, iban_bban(rng, cc))
    assert len(compact) == IBAN_LENGTHS[cc]
    grouped = rng.random() < 0.6
    text = print_iban(compact, grouped)
    assert iban_valid(text), text
    return text, f"iban/{cc}/{'grouped' if grouped else 'compact'}"


def gen_iban_decoy(rng, lang):
    while True:
        cc = pick_iban_country(rng, lang)
        bban = iban_bban(rng, cc)
        why = rng.choice(["bad_check", "bad_check", "too_long", "too_short"])
        if why == "bad_check":
            good = iban_with_check(cc, bban)
            check = int(good[2:4])
            bad = (check + rng.randint(1, 96)) % 97
            bad = bad if bad >= 2 else bad + 2
            compact = f"{cc}{bad:02d}{bban}"
        elif why == "too_long":
            compact = iban_with_check(cc, bban + rand_digits(rng, 1))
        else:
            compact = iban_with_check(cc, bban[:-1])
        grouped = rng.random() < 0.6
        text = print_iban(compact, grouped)
        if not iban_valid(text) and not iban_any_prefix_valid(text):
            return text, f"iban/{why}/{cc}", "iban_decoy"


def gen_ipv4(rng, lang):
    r = rng.random()
    if r < 0.35:
        text = f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    elif r < 0.5:
        text = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    elif r < 0.6:
        text = f"172.{rng.randint(16, 31)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    else:
        first = rng.choice([rng.randint(11, 126), rng.randint(128, 223)])
        text = f"{first}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    assert ipv4_valid(text)
    return text, "ip/v4"


def gen_ipv6(rng, lang):
    prefix = rng.choice(["2001:db8", "2a02:8109", "2a01:4f8", "2600:1f18", "2c0f:fb50", "2001:41d0", "fd12:3456"])
    groups = prefix.split(":") + ["%x" % rng.randint(0, 0xFFFF) for _ in range(6)]
    style = rng.choice(["full", "full", "short", "compressed", "compressed", "compressed"])
    if style == "full":
        text = ":".join("%04x" % int(g, 16) for g in groups)
    elif style == "short":
        text = ":".join(groups)
    else:
        # Replace a run of groups with "::", keeping at least three non-empty groups.
        i = rng.randint(2, 4)
        j = rng.randint(i + 1, min(i + 4, 7))
        left, right = groups[:i], groups[j:]
        if len(left) + len(right) < 3:
            right = groups[-1:]
        text = ":".join(left) + "::" + ":".join(right)
    if rng.random() < 0.2:
        text = text.upper()
    assert ipv6_valid(text), text
    return text, f"ip/v6/{style}"


def gen_ip_decoy(rng, lang):
    r = rng.random()
    if r < 0.3:
        v = rng.choice([
            lambda: f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 30)}",
            lambda: f"v{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 30)}",
            lambda: ".".join(str(rng.randint(0, 12)) for _ in range(5)),
            lambda: f"10.0.{rng.randint(17000, 22631)}.{rng.randint(100, 4000)}",
            lambda: f"{rng.randint(1, 5)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(1, 99)}",
        ])()
        return v, "ip/version", "ip_decoy_version"
    if r < 0.5:
        v = rng.choice([
            lambda: f"999.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}",
            lambda: f"{rng.randint(256, 999)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}",
            lambda: f"192.168.{rng.randint(0, 255)}.{rng.randint(256, 999)}",
            lambda: f"192.168.01.{rng.randint(1, 9)}",
            lambda: f"{rng.randint(1, 9)}.{rng.randint(1, 9)}.{rng.randint(1, 9)}.{rng.randint(1, 9)}.{rng.randint(1, 9)}",
        ])()
        assert not ipv4_valid(v)
        return v, "ip/bad_quad", "ip_decoy_quad"
    if r < 0.8:
        v = rng.choice(["std::vector<int>", "std::string", "a::b", "std::map<K, V>", "Foo::Bar::baz()",
                        "boost::asio::ip::tcp", "ns::detail::impl", "d::e", "std::unique_ptr<Node>",
                        "Base::Derived::f", "c::d::e", "std::chrono::seconds", "ab::cd", "cafe::beef"])
        return v, "ip/cpp_scope", "ip_decoy_code"
    v, kind, group = rng.choice([
        lambda: (":".join("%02x" % rng.randint(0, 255) for _ in range(6)), "ip/mac", "ip_decoy_mac"),
        lambda: (f"{rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}", "ip/time", "ip_decoy_time"),
        lambda: (rng.choice(["::1", "fe80::1", "::"]), "ip/v6_local", "ip_decoy_local"),
    ])()
    assert not ipv6_valid(v), v
    return v, kind, group


def gen_phone(rng, lang):
    country = lang if rng.random() < 0.75 else rng.choice(["us", "uk", "de", "fr", "es", "it", "nl"])
    country = {"en": rng.choice(["us", "us", "uk"])}.get(country, country)
    d = lambda n: rand_digits(rng, n)  # noqa: E731
    while True:
        if country == "us":
            # NANP: area and exchange NXX, never N11 (service codes); no X9X areas.
            area = rng.choice("23456789") + rng.choice("012345678") + d(1)
            exch = rng.choice("23456789") + d(2)
            line = d(4)
            if area[1:] == "11" or exch[1:] == "11":
                continue
            text = rng.choice([f"({area}) {exch}-{line}", f"{area}-{exch}-{line}", f"{area}.{exch}.{line}",
                               f"+1 {area} {exch} {line}", f"+1-{area}-{exch}-{line}", f"+1 ({area}) {exch}-{line}"])
        elif country == "uk":
            text = rng.choice([f"020 {rng.choice('378')}{d(3)} {d(4)}", f"07{rng.choice('3456789')}{d(2)} {d(6)}",
                               f"+44 20 {rng.choice('378')}{d(3)} {d(4)}", f"+44 7{rng.choice('3456789')}{d(2)} {d(6)}",
                               f"(020) {rng.choice('378')}{d(3)} {d(4)}", f"0161 496 {d(4)}",
                               f"+44 (0)20 {rng.choice('378')}{d(3)} {d(4)}"])
        elif country == "de":
            mobile = f"01{rng.choice(['51', '52', '57', '59', '60', '62', '70', '71', '72', '73', '75', '76', '77', '78', '79'])}"
            city = rng.choice(["69", "89", "40", "221", "211", "711", "341"])
            text = rng.choice([f"030 {rng.choice('123456789')}{d(6)}", f"089 {rng.choice('123456789')}{d(7)}",
                               f"015{rng.choice('12579')} {d(7)}", f"030/{rng.choice('123456789')}{d(6)}",
                               f"+49 30 {rng.choice('123456789')}{d(7)}", f"+49 15{rng.choice('12579')} {d(8)}",
                               f"0171-{d(7)}",
                               # 12-digit mobiles and short city lines, as written every day
                               f"{mobile} {d(8)}", f"{mobile}-{d(8)}", f"{mobile}/{d(8)}", f"{mobile} {d(4)} {d(4)}",
                               f"0{city}/{rng.choice('123456789')}{d(5)}", f"0{city} {rng.choice('123456789')}{d(5)}",
                               f"(0{city}) {rng.choice('123456789')}{d(5)}", f"+49 (0){city} {rng.choice('123456789')}{d(5)}",
                               f"030 {rng.choice('123456789')}{d(7)}",
                               f"0049 {city} {rng.choice('123456789')}{d(5)}", f"0049 (0){city} {rng.choice('123456789')}{d(5)}"])
        elif country == "fr":
            pairs = lambda: " ".join(d(2) for _ in range(4))  # noqa: E731
            text = rng.choice([f"0{rng.choice('67')} {pairs()}", f"01 {pairs()}", f"+33 {rng.choice('167')} {pairs()}",
                               f"0{rng.choice('67')}.{pairs().replace(' ', '.')}",
                               f"0{rng.choice('67')}-{pairs().replace(' ', '-')}", f"+33 (0){rng.choice('67')} {pairs()}"])
        elif country == "es":
            text = rng.choice([f"6{d(2)} {d(2)} {d(2)} {d(2)}", f"+34 6{d(2)} {d(2)} {d(2)} {d(2)}",
                               f"+34 91{d(1)} {d(3)} {d(3)}", f"+34 6{d(2)} {d(3)} {d(3)}",
                               f"6{d(2)} {d(3)} {d(3)}", f"9{rng.choice('1356')} {d(3)} {d(2)} {d(2)}",
                               f"7{d(2)} {d(3)} {d(3)}"])
        elif country == "it":
            mob = f"3{rng.choice('234456789')}{d(1)}"
            text = rng.choice([f"+39 06 {d(4)} {d(4)}", f"06 {d(4)} {d(4)}", f"+39 3{rng.choice('234')}{d(1)} {d(3)} {d(4)}",
                               f"02 {d(4)} {d(4)}", f"+39 02 {d(8)}",
                               f"{mob} {d(3)} {d(4)}", f"{mob} {d(7)}", f"{mob}/{d(7)}", f"{mob} {d(3)} {d(2)} {d(2)}",
                               f"02 {rng.choice('123456789')}{d(6)}", f"0039 {mob} {d(7)}"])
        else:  # nl
            text = rng.choice([f"020 {d(3)} {d(4)}", f"06 {rng.choice('123456789')}{d(7)}", f"+31 6 {rng.choice('123456789')}{d(7)}",
                               f"+31 20 {d(3)} {d(4)}", f"06-{rng.choice('123456789')}{d(7)}",
                               f"0{rng.choice(['10', '30', '70'])}-{rng.choice('123456789')}{d(6)}",
                               f"(020) {d(3)} {d(4)}", f"+31 (0)20 {d(3)} {d(4)}"])
        digits = re.sub(r"\D", "", text)
        if len(set(digits)) > 1:
            break
    assert phone_valid(text), text
    fmt = "e164" if text.startswith("+") else "national"
    return text, f"phone/{country}/{fmt}"


def gen_phone_decoy(rng, lang):
    r = rng.random()
    if r < 0.35:
        c = rng.choice("0123456789")
        text = rng.choice([f"({c * 3}) {c * 3}-{c * 4}", f"{c * 3}-{c * 3}-{c * 4}", "+1 111 111 1111",
                           f"0{'0' * 3} {'0' * 6}", f"{c * 2} {c * 2} {c * 2} {c * 2} {c * 2}", c * 10])
        assert not phone_valid(text)
        return text, "phone/all_same", "phone_decoy_same"
    if r < 0.6:
        whole = rng.randint(10, 99999)
        cents = rng.randint(0, 99)
        en = f"{whole:,}"  # 12,345
        eu = en.replace(",", ".")  # 12.345
        text = rng.choice([f"${en}.{cents:02d}", f"€{eu},{cents:02d}", f"{eu},{cents:02d} €", f"USD {en}.{cents:02d}",
                           f"CHF {whole}.{cents:02d}", f"£{en}", f"{whole * 100 + cents:,}".replace(",", " ") + " EUR"])
        return text, "phone/price", "phone_decoy_price"
    if r < 0.85:
        # Reference numbers shaped like the national formats: the digits of a
        # phone, but bare where a phone never is, or glued to a code.
        mobile = f"01{rng.choice(['51', '60', '70', '76', '79'])}"
        choice = rng.randrange(4)
        if choice == 0:
            text, kind = f"0{rng.choice('123456789')}{rand_digits(rng, 7)}", "phone/bare9"
        elif choice == 1:
            text, kind = f"3{rng.choice('2345789')}{rand_digits(rng, 8)}", "phone/it_bare"
        elif choice == 2:
            text, kind = f"ORD-{mobile}-{rand_digits(rng, 8)}", "phone/order_code"
        else:
            text, kind = f"#0{rng.choice('123456789')}{rand_digits(rng, 9)}", "phone/ticket"
        digits = re.sub(r"\D", "", text)
        assert not phone_valid(text) or kind in ("phone/order_code", "phone/ticket"), text
        assert len(set(digits)) > 1
        return text, kind, "phone_decoy_ref"
    r = rng.random()
    if r < 0.35:
        text = f"978-{rng.randint(0, 1)}-{rand_digits(rng, 4, '1')}-{rand_digits(rng, 4, '1')}-{rng.randint(0, 9)}"
        kind, group = "phone/isbn", "phone_decoy_isbn"
    elif r < 0.7:
        # An ISBN-10 from a German-language publisher (group 3): ten digits starting 3.
        text = f"3-{rand_digits(rng, 2, '1')}-{rand_digits(rng, 6, '1')}-{rng.choice('0123456789X')}"
        kind, group = "phone/isbn10", "phone_decoy_isbn"
    else:
        text = f"17{rand_digits(rng, 8)}"  # a Unix timestamp: NANP area codes never start with 1
        kind, group = "phone/timestamp", "phone_decoy_ts"
    assert not phone_valid(text), text
    return text, kind, group


def ascii_fold(s):
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def gen_email(rng, lang, name=None):
    name = name or rng.choice(NAMES[lang])
    parts = [re.sub(r"[^a-z]", "", p) for p in ascii_fold(name).lower().split()]
    parts = [p for p in parts if p]
    first, last = parts[0], parts[-1]
    local = rng.choice([f"{first}.{last}", f"{first}{last}", f"{first[0]}.{last}", f"{first}_{last}",
                        f"{first}.{last}+{rng.choice(['shop', 'news', 'work'])}", f"{first}{rng.randint(1, 99)}",
                        f"{last}.{first[0]}", rng.choice(["info", "support", "billing", "hr", "office"])])
    domain = rng.choice(EMAIL_DOMAINS[lang])
    text = f"{local}@{domain}"
    if rng.random() < 0.08:
        text = ".".join(p[:1].upper() + p[1:] for p in local.split(".")) + "@" + domain  # John.Smith@...
    assert email_valid(text), text
    return text, "email"


def gen_email_decoy(rng, lang):
    text = rng.choice(["user@localhost", "root@localhost", "admin@intranet", "postgres@db-server",
                       "deploy@build-runner", "@channel", "@here", "@Override", "@types/node", "@angular/core",
                       "@pytest.fixture", "@app.route", "john.doe@", "@johndoe", "noreply@mailer",
                       "foo@bar.c", "test@123.45"])
    assert not email_valid(text)
    if text.startswith("@") or text.endswith("@"):
        kind = "email/at_word"
    elif "." in text.split("@")[1]:
        kind = "email/bad_tld"
    else:
        kind = "email/no_tld"
    return text, kind, "email_decoy"


def fmt_date(rng, lang, y, m, d, style=None):
    styles = {
        "en": ["long", "us_long", "iso", "us_slash", "eu_slash", "short_month"],
        "de": ["dot", "dot", "de_long", "iso"],
        "fr": ["slash", "slash", "long", "iso"],
        "es": ["slash", "es_long", "es_long", "iso"],
        "it": ["slash", "long", "dot", "iso"],
        "nl": ["dash", "dash", "slash", "iso"],
    }[lang]
    style = style or rng.choice(styles)
    months = MONTHS.get(lang, MONTHS["en"])
    if style == "long":
        return f"{d} {months[m - 1]} {y}", style
    if style == "us_long":
        return f"{months[m - 1]} {d}, {y}", style
    if style == "short_month":
        return f"{d} {months[m - 1][:3]} {y}", style
    if style == "iso":
        return f"{y:04d}-{m:02d}-{d:02d}", style
    if style == "us_slash":
        return f"{m:02d}/{d:02d}/{y}", style
    if style in ("eu_slash", "slash"):
        return f"{d:02d}/{m:02d}/{y}", style
    if style == "dot":
        return f"{d:02d}.{m:02d}.{y}", style
    if style == "de_long":
        return f"{d}. {months[m - 1]} {y}", style
    if style == "es_long":
        return f"{d} de {months[m - 1]} de {y}", style
    if style == "dash":
        return f"{d:02d}-{m:02d}-{y}", style
    raise ValueError(style)


DOB_CONTEXT = {
    "en": ["I was born on {v}.", "DOB: {v}", "Date of birth: {v}", "date of birth {v}", "Birth date: {v}",
           "Passenger {name}, born {v}.", "My daughter was born on {v}, so she needs a child fare."],
    "de": ["Ich bin geboren am {v}.", "Geburtsdatum: {v}", "geboren am {v}", "Geb.-Datum: {v}"],
    "fr": ["date de naissance : {v}", "Je suis né le {v}.", "Je suis née le {v}.", "Date de naissance : {v}"],
    "es": ["fecha de nacimiento: {v}", "Nací el {v}.", "Fecha de nacimiento: {v}", "nacida el {v}"],
    "it": ["data di nascita {v}", "Sono nato il {v}.", "Data di nascita: {v}", "nata il {v}"],
    "nl": ["geboortedatum: {v}", "Ik ben geboren op {v}.", "Geboortedatum: {v}"],
}
# English US slash order is month/day; everything else day/month.


def gen_dob(rng, lang):
    while True:
        y, m, d = rng.randint(1940, 2008), rng.randint(1, 12), rng.randint(1, 28 if rng.random() < 0.7 else 31)
        if real_date(y, m, d):
            break
    text, style = fmt_date(rng, lang, y, m, d)
    assert birth_date_valid(text), text
    return text, f"dob/{lang}/{style}", "dob"


def gen_dob_decoy(rng, lang):
    if rng.random() < 0.45:
        # A real birth context with an impossible date.
        y = rng.randint(1950, 2005)
        m, d = rng.choice([(2, 30), (2, 31), (4, 31), (6, 31), (9, 31), (11, 31), (2, 29)])
        if m == 2 and d == 29:
            y = rng.choice([1985, 1990, 1991, 1993, 1997, 2001, 1970, 1974])
        style = rng.choice({"en": ["long", "iso", "eu_slash", "us_long"], "de": ["dot", "de_long", "iso"],
                            "fr": ["slash", "long"], "es": ["slash", "es_long"], "it": ["slash", "long", "dot"],
                            "nl": ["dash", "slash"]}[lang])
        text, _ = fmt_date(rng, lang, y, m, d, style)
        assert not birth_date_valid(text), text
        return text, f"dob/impossible/{style}", "dob"
    # A real date that is not a birth date.
    y, m, d = rng.randint(2019, 2026), rng.randint(1, 12), rng.randint(1, 28)
    if lang == "en" and rng.random() < 0.35:
        text = f"{y:04d}-{m:02d}-{d:02d}" + rng.choice(["T%02d:%02d:%02dZ" % (rng.randint(0, 23), rng.randint(0, 59),
                                                                            rng.randint(0, 59)), " 14:30:00", ""])
        return text, "dob/no_context/log", "dob_decoy_log"
    text, style = fmt_date(rng, lang, y, m, d)
    return text, f"dob/no_context/{style}", "dob_decoy_date"


# -- secrets ----------------------------------------------------------------


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def gen_jwt(rng):
    alg = rng.choice(["RS256", "RS256", "HS256", "ES256"])
    header = {"alg": alg, "typ": "JWT"}
    if rng.random() < 0.3:
        header["kid"] = mixed(rng, ALNUM, 16)
    iat = rng.randint(1_690_000_000, 1_730_000_000)
    payload = {"sub": str(rng.randint(10 ** 6, 10 ** 9)), "name": rng.choice(sum(NAMES.values(), [])),
               "iat": iat, "exp": iat + 3600}
    if rng.random() < 0.4:
        payload["scope"] = rng.choice(["read:users", "admin", "openid profile email"])
    sig_len = {"RS256": 256, "HS256": 32, "ES256": 64}[alg]
    h = b64url(json.dumps(header, separators=(",", ":")).encode())
    p = b64url(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
    s = b64url(rng.randbytes(sig_len))
    return f"{h}.{p}.{s}"


PEM_PRIVATE = {
    "RSA PRIVATE KEY": bytes.fromhex("308204a40201000282010100"),
    "PRIVATE KEY": bytes.fromhex("308204bd020100300d06092a864886f70d0101010500"),
    "EC PRIVATE KEY": bytes.fromhex("30770201010420"),
    "OPENSSH PRIVATE KEY": b"openssh-key-v1\x00\x00\x00\x00\x04none",
    "ENCRYPTED PRIVATE KEY": bytes.fromhex("308205163040"),
}
PEM_PUBLIC = {
    "CERTIFICATE": bytes.fromhex("308203"),
    "PUBLIC KEY": bytes.fromhex("30820122300d06092a864886f70d01010105000382010f00"),
    "CERTIFICATE REQUEST": bytes.fromhex("308202"),
}


def pem_block(rng, label, prefix):
    n = rng.randint(90, 700)
    body = base64.b64encode(prefix + rng.randbytes(n)).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


SECRET_KINDS = [("pem", 12), ("pem_json", 3), ("jwt", 16), ("aws", 14), ("openai", 14), ("github", 12), ("google", 10),
                ("slack", 10), ("stripe", 10)]


def gen_secret_value(rng, kind):
    if kind == "pem_json":
        return pem_block(rng, "PRIVATE KEY", PEM_PRIVATE["PRIVATE KEY"]).replace("\n", "\\n")
    if kind == "pem":
        label = rng.choice(list(PEM_PRIVATE))
        block = pem_block(rng, label, PEM_PRIVATE[label])
        return block.replace("\n", "\r\n") if rng.random() < 0.15 else block  # pasted from Windows
    if kind == "jwt":
        return gen_jwt(rng)
    if kind == "aws":
        return "AKIA" + mixed(rng, UPPER_ALNUM, 16)
    if kind == "openai":
        return "sk-proj-" + mixed(rng, B64URL, rng.randint(48, 156))
    if kind == "github":
        return "ghp_" + mixed(rng, ALNUM, 36)
    if kind == "google":
        return "AIzaSy" + mixed(rng, B64URL, 33)
    if kind == "slack":
        return f"xoxb-{rand_digits(rng, rng.randint(10, 13), '1')}-{rand_digits(rng, 13, '1')}-{mixed(rng, ALNUM, 24)}"
    if kind == "stripe":
        return "sk_live_" + mixed(rng, ALNUM, rng.choice([24, 24, 99]))
    raise ValueError(kind)


# Code contexts for each secret kind: lists of pieces, "{v}" is the value.
# Prose snippets start with "~" (no code lead-in before them).
SECRET_SNIPPETS = {
    "pem": ["```\n{v}\n```", "~Here is the key from the server, maybe it's the wrong format?\n{v}",
            "~id_rsa contents:\n\n{v}\n"],
    "pem_json": ["```json\n{\n  \"type\": \"service_account\",\n  \"project_id\": \"kestrel-prod\",\n"
                 "  \"private_key\": \"{v}\\n\",\n  \"token_uri\": \"https://oauth2.googleapis.com/token\"\n}\n```"],
    "jwt": ["```\ncurl -H \"Authorization: Bearer {v}\" https://api.{company_host}.com/v1/me\n```",
            "~The token {v} comes back as expired.", "Authorization: Bearer {v}",
            "```js\nconst token = \"{v}\";\n```", "GET /api/v2/export?format=csv&token={v} HTTP/1.1"],
    "aws": ["```ini\n[default]\naws_access_key_id = {v}\nregion = eu-central-1\n```",
            "```bash\nexport AWS_ACCESS_KEY_ID={v}\naws s3 ls\n```", "s3 = boto3.client(\"s3\", aws_access_key_id=\"{v}\")",
            "~The access key {v} gets AccessDenied on PutObject."],
    "openai": ["```bash\nexport OPENAI_API_KEY={v}\npython app.py\n```", "client = OpenAI(api_key=\"{v}\")",
               "```json\n{\"provider\": \"openai\", \"api_key\": \"{v}\"}\n```",
               "~My key is {v} and it says quota exceeded.", "`OPENAI_API_KEY=\"{v}\"` in .env"],
    "github": ["```bash\nexport GITHUB_TOKEN={v}\ngh repo list\n```",
               "curl -H \"Authorization: token {v}\" https://api.github.com/user",
               "~The PAT {v} doesn't have repo scope apparently."],
    "google": ["https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={v}",
               "```\nGOOGLE_API_KEY={v}\n```", "~The Maps key {v} returns REQUEST_DENIED."],
    "slack": ["```python\nclient = WebClient(token=\"{v}\")\n```", "SLACK_BOT_TOKEN={v}",
              "~The bot token {v} gets not_authed."],
    "stripe": ["```python\nstripe.api_key = \"{v}\"\n```", "STRIPE_SECRET_KEY={v}",
               "~Our live key {v} returns 401 since this morning."],
}


def gen_secret_decoy(rng, lang):
    r = rng.random()
    if r < 0.14:
        v, snippet = rng.choice([
            ("sk-learn", rng.choice(["I'm using sk-learn (scikit-learn) for the classifier, is that fine?",
                                     "Does {v} support sparse input in RandomForest?"])),
            ("risk-assessment-2024-q3-final-v2", "See the file `{v}.xlsx` in the shared drive."),
            ("task-runner-v2-build-4411", "The branch is called `{v}`."),
            ("desk-booking-2025-floor3-room12", "The Jira ticket is titled {v}."),
            ("sk-this-is-not-a-real-key-at-all", "Set the key to `{v}` for now, it's a placeholder."),
            ("sk-your-api-key-here", "The sample .env has OPENAI_API_KEY={v}"),
            ("sk-test-key-for-local-dev", "Locally we run with `{v}` against the mock server."),
        ])
        if "{v}" not in snippet:
            snippet = snippet.replace(v, "{v}", 1)
        return v, "secret/sk_word", snippet
    if r < 0.28:
        v = rng.choice(["sk-proj-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "sk-proj-your-key-here", "sk-proj-...",
                        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xoxb-your-bot-token-here",
                        "sk_live_YOUR_SECRET_KEY_HERE", "AKIA****************", "AIza...",
                        "ghp_<your-token>", "sk_live_...", "xoxb-***"])
        snippet = rng.choice(["```bash\nexport API_KEY={v}\n```", "Replace `{v}` with your own key.",
                              "The README says to use {v} here."])
        return v, "secret/placeholder", snippet
    if r < 0.45:
        # "eyJ..." that is not a JWT: one base64 segment, or a header without "alg".
        obj = rng.choice([{"theme": "dark", "lang": "de"}, {"page": 2, "size": 50}, {"user": "me", "v": 1},
                          {"cursor": rng.randint(1000, 99999)}, {"typ": "JWT"}, {"kid": mixed(rng, ALNUM, 8)}])
        seg = b64url(json.dumps(obj, separators=(",", ":")).encode())
        if rng.random() < 0.5:
            v = base64.b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode()
            kind = "secret/eyj_single"
        else:
            v = f"{seg}.{b64url(json.dumps({'x': 1}).encode())}.{b64url(rng.randbytes(8))}"
            kind = "secret/eyj_no_alg"
        if rng.random() < 0.3:
            v = "eyJ" + mixed(rng, ALNUM, rng.randint(10, 30))
            kind = "secret/eyj_random"
        snippet = rng.choice(["The cursor param looks like `{v}`, what is it?", "state={v}",
                              "The cookie value is {v} — is that base64?"])
        return v, kind, snippet
    if r < 0.62:
        label = rng.choice(list(PEM_PUBLIC))
        v = pem_block(rng, label, PEM_PUBLIC[label])
        snippet = rng.choice(["This is the public cert they sent us:\n{v}", "```\n{v}\n```"])
        return v, "secret/pem_public", snippet
    if r < 0.74:
        v = "pk_live_" + mixed(rng, ALNUM, 24)
        snippet = rng.choice(["The frontend uses the publishable key {v}, that's fine to ship, right?",
                              "`const stripe = Stripe(\"{v}\");`"])
        return v, "secret/stripe_publishable", snippet
    if r < 0.87:
        v = rng.choice(["ghp_" + mixed(rng, ALNUM, rng.randint(8, 20)), "AKIA" + mixed(rng, UPPER_ALNUM, 8),
                        "AIza" + mixed(rng, ALNUM, 12), "sk_live_" + mixed(rng, ALNUM, 6)])
        snippet = rng.choice(["The prefix `{v}` is all that's left in the log after truncation.",
                              "The redacted value shows `{v}`."])
        return v, "secret/truncated", snippet
    if r < 0.93:
        v, snippet = rng.choice([
            ("".join(rng.choice("0123456789abcdef") for _ in range(40)), "Reverting commit {v} fixed it."),
            ("sha256:" + "".join(rng.choice("0123456789abcdef") for _ in range(64)), "The image digest is `{v}`."),
            ("%08x-%04x-4%03x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                                             0x8000 | rng.getrandbits(14), rng.getrandbits(48)),
             "The request id was {v}."),
        ])
        return v, "secret/hash", snippet
    v = rng.choice(["eyJ" * rng.randint(2, 6), "-----BEGIN-----", "-----BEGIN RSA PRIVATE KEY----- (redacted)",
                    "xoxb-", "AKIA"])
    snippet = rng.choice(["The scanner flagged the string `{v}` in a test fixture.", "Grep for `{v}` found nothing."])
    return v, "secret/fragment", snippet


# ---------------------------------------------------------------------------
# Disguises: the same values written with Unicode look-alikes a model reads as
# the ASCII ones (full-width or Arabic-Indic digits, zero-width or no-break
# spaces between groups, en dashes, a full-width @, soft hyphens), plus cards
# grouped with dots or double spaces. The detector must read them through its
# normalised view; the span stays the value's original bytes.
# ---------------------------------------------------------------------------

# Zero of each digit script used.
DIGIT_SCRIPTS = {"fullwidth": 0xFF10, "arabic_indic": 0x0660, "ext_arabic_indic": 0x06F0, "devanagari": 0x0966}
CARD_SEPARATORS = {"zwsp": "\u200b", "nbsp": "\u00a0", "narrow_nbsp": "\u202f", "thin_space": "\u2009",
                   "ideographic_space": "\u3000", "soft_hyphen": "\u00ad", "word_joiner": "\u2060",
                   "en_dash": "\u2013", "dots": ".", "double_space": "  "}
SSN_DASHES = {"en_dash": "\u2013", "em_dash": "\u2014", "minus": "\u2212", "nb_hyphen": "\u2011",
              "figure_dash": "\u2012", "fullwidth_hyphen": "\uff0d"}
# Share of values disguised, by slot (the rest stay ASCII, as before).
DISGUISE_RATE = {"card": 0.25, "card_decoy": 0.2, "ssn": 0.2, "ssn_decoy": 0.15, "email": 0.15,
                 "email_decoy": 0.1, "iban": 0.1, "iban_decoy": 0.1}


def in_script(script, s):
    return "".join(chr(DIGIT_SCRIPTS[script] + int(c)) if "0" <= c <= "9" else c for c in s)


def full_width(s):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def insert_inside(drng, s, ch, allowed):
    """s with ch inserted at a random position between two characters that both pass allowed()."""
    cuts = [i for i in range(1, len(s)) if allowed(s[i - 1]) and allowed(s[i])]
    i = drng.choice(cuts)
    return s[:i] + ch + s[i:]


def disguise_card(drng, v):
    how = drng.choice(list(DIGIT_SCRIPTS) + list(CARD_SEPARATORS))
    if how in DIGIT_SCRIPTS:
        return in_script(how, v), how
    groups = re.split(r"[ -]", v)
    if len(groups) == 1:
        groups = [v[i:i + 4] for i in range(0, len(v), 4)]
    return CARD_SEPARATORS[how].join(groups), how


def disguise_ssn(drng, v):
    if "-" in v:
        how = drng.choice(list(SSN_DASHES) + ["fullwidth", "zwsp"])
    elif " " in v:
        how = drng.choice(["nbsp", "fullwidth"])
    else:
        how = drng.choice(["fullwidth", "arabic_indic"])
    if how in SSN_DASHES:
        return v.replace("-", SSN_DASHES[how]), how
    if how == "nbsp":
        return v.replace(" ", "\u00a0"), how
    if how == "zwsp":
        return insert_inside(drng, v, "\u200b", str.isdigit), how
    return in_script(how, v), how


def disguise_email(drng, v):
    how = drng.choice(["fullwidth_at", "fullwidth_at", "soft_hyphen", "soft_hyphen", "fullwidth"])
    if how == "fullwidth_at":
        return v.replace("@", "\uff20"), how
    if how == "fullwidth":
        return full_width(v), how
    local, domain = v.split("@")
    if sum(c.isalpha() for c in local) >= 2 and re.search(r"[A-Za-z]{2}", local):
        local = insert_inside(drng, local, "\u00ad", str.isalpha)
    if re.search(r"[A-Za-z]{2}", domain.split(".")[0]):
        domain = insert_inside(drng, domain, "\u00ad", str.isalpha)
    return local + "@" + domain, how


def disguise(drng, slot, v, kind):
    """(value, kind) with the value disguised in a share of slots; kinds name the disguise after a "/"."""
    if drng.random() >= DISGUISE_RATE.get(slot, 0):
        return v, kind
    if slot == "card":
        d, how = disguise_card(drng, v)
        assert card_valid(d), (v, d)
    elif slot == "card_decoy":
        if kind == "card/long_run":
            return v, kind  # grouped, a later group could start a valid card
        d, how = disguise_card(drng, v)
        if card_any_prefix_valid(d):
            return v, kind
    elif slot == "ssn":
        d, how = disguise_ssn(drng, v)
        assert ssn_valid(d), (v, d)
    elif slot == "ssn_decoy":
        if kind == "ssn/plain_no_context":
            return v, kind
        d, how = disguise_ssn(drng, v)
        assert not ssn_valid(d) and not phone_valid(d), (v, d)
    elif slot == "email":
        d, how = disguise_email(drng, v)
        assert email_valid(d), (v, d)
    elif slot == "email_decoy":
        if "@" not in v[1:-1]:
            return v, kind
        d, how = v.replace("@", "\uff20"), "fullwidth_at"
        assert not email_valid(d), (v, d)
    elif slot in ("iban", "iban_decoy"):
        if " " not in v:
            return v, kind
        d, how = v.replace(" ", "\u00a0"), "nbsp"
        assert iban_valid(d) == (slot == "iban") and (slot == "iban" or not iban_any_prefix_valid(d)), (v, d)
    else:
        return v, kind
    return d, f"{kind}/{how}"


# ---------------------------------------------------------------------------
# Message assembly.
# ---------------------------------------------------------------------------


class Builder:
    def __init__(self):
        self.parts = []
        self.pos = 0
        self.entities = []
        self.decoys = []

    def add(self, s):
        if s.startswith(" ") and (not self.parts or self.parts[-1][-1:].isspace()):
            s = s[1:]
        if not s:
            return
        self.parts.append(s)
        self.pos += len(s.encode("utf-8"))

    def mark(self, s, category, kind, positive):
        start = self.pos
        self.add(s)
        rec = {"category": category, "start": start, "end": self.pos, "kind": kind}
        (self.entities if positive else self.decoys).append(rec)

    def text(self):
        return "".join(self.parts)


class Filler:
    def __init__(self, rng, lang):
        self.rng, self.lang = rng, lang
        self.name = rng.choice(NAMES[lang])
        self.cache = {}

    def get(self, key):
        rng, lang = self.rng, self.lang
        if key == "name":
            return self.name
        if key == "first":
            return self.name.split()[0]
        if key == "other_first":
            return rng.choice([n for n in NAMES[lang] if n != self.name]).split()[0]
        if key == "city":
            return self.cache.setdefault("city", rng.choice(CITIES))
        if key == "city2":
            return rng.choice([c for c in CITIES if c != self.get("city")])
        if key == "company":
            return rng.choice(COMPANIES)
        if key == "company_host":
            return rng.choice(["acme", "kestrel", "bluefin", "nordwind"])
        if key == "flight":
            return rng.choice(FLIGHTS)
        if key == "ticket":
            return rng.choice(["#", "INC-", "T"]) + str(rng.randint(10000, 99999))
        if key == "exp":
            return f"{rng.randint(1, 12):02d}/{rng.randint(25, 31)}"
        if key == "bic":
            return rng.choice(["COBADEFFXXX", "DEUTDEDB", "BNPAFRPP", "CAIXESBB", "UNCRITMM", "INGBNL2A",
                               "RABONL2U", "GEBABEBB", "UBSWCHZH80A", "NWBKGB2L"])
        if key == "amount":
            v = rng.randint(20, 4999)
            return {"en": f"${v}.00", "de": f"{v},00 €", "fr": f"{v},00 €", "es": f"{v},00 €", "it": f"€ {v},00",
                    "nl": f"€ {v},-"}[lang]
        if key == "date":
            y, m, d = rng.randint(2025, 2026), rng.randint(1, 12), rng.randint(1, 28)
            return fmt_date(rng, lang, y, m, d, {"en": "long", "de": "dot", "fr": "long", "es": "es_long",
                                                  "it": "long", "nl": "dash"}[lang])[0]
        raise KeyError(key)


PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(b, filler, template, value=None):
    """Appends `template` to builder b; value = (text, category, kind, positive) for "{v}"."""
    pos = 0
    for m in PLACEHOLDER.finditer(template):
        b.add(template[pos:m.start()])
        if m.group(1) == "v":
            text, category, kind, positive = value
            b.mark(text, category, kind, positive)
        else:
            b.add(filler.get(m.group(1)))
        pos = m.end()
    b.add(template[pos:])


def pick_t(rng, group, lang):
    table = T[group]
    return rng.choice(table.get(lang) or table["en"])


# Slot kinds: (name, category, positive, weight, domains)
SLOTS = [
    ("card", "payment_card", True, 8.0, ["support", "travel", "bank"]),
    ("ssn", "ssn", True, 7.5, ["hr", "bank"]),
    ("iban", "iban", True, 7.5, ["bank", "hr", "support"]),
    ("secret", "secret", True, 8.0, ["dev"]),
    ("card_decoy", "payment_card", False, 7.5, ["support", "travel", "bank"]),
    ("ssn_decoy", "ssn", False, 7.5, ["hr", "support", "bank"]),
    ("iban_decoy", "iban", False, 7.5, ["bank", "support"]),
    ("secret_decoy", "secret", False, 8.0, ["dev"]),
    ("email", "email", True, 7.0, ["support", "hr", "travel", "bank", "dev"]),
    ("phone", "phone", True, 7.0, ["support", "hr", "travel", "bank"]),
    ("ipv4", "ip_address", True, 4.5, ["dev", "support"]),
    ("ipv6", "ip_address", True, 3.0, ["dev", "support"]),
    ("dob", "date_of_birth", True, 7.0, ["hr", "travel", "bank"]),
    ("email_decoy", "email", False, 3.0, ["dev"]),
    ("phone_decoy", "phone", False, 4.0, ["support", "bank", "travel"]),
    ("ip_decoy", "ip_address", False, 5.0, ["dev"]),
    ("dob_decoy", "date_of_birth", False, 5.0, ["support", "bank", "hr", "travel"]),
]
SLOT_BY_NAME = {s[0]: s for s in SLOTS}


def emit_slot(rng, drng, b, filler, lang, slot, lone_ssn):
    """drng decides the disguises only, so the rest of the corpus is the same with or without them."""
    name, category, positive, _, _ = SLOT_BY_NAME[slot]
    if slot == "card":
        v, kind = disguise(drng, slot, *gen_card(rng, lang))
        fill(b, filler, pick_t(rng, "card", lang), (v, category, kind, True))
    elif slot == "card_decoy":
        v, kind, group = gen_card_decoy(rng, lang)
        v, kind = disguise(drng, slot, v, kind)
        fill(b, filler, pick_t(rng, group, lang), (v, category, kind, False))
    elif slot == "ssn":
        v, kind, group = gen_ssn(rng, lang)
        v, kind = disguise(drng, slot, v, kind)
        fill(b, filler, pick_t(rng, group, lang), (v, category, kind, True))
    elif slot == "ssn_decoy":
        v, kind, group = gen_ssn_decoy(rng, lang, allow_plain=lone_ssn)
        v, kind = disguise(drng, slot, v, kind)
        fill(b, filler, pick_t(rng, group, lang), (v, category, kind, False))
    elif slot == "iban":
        v, kind = disguise(drng, slot, *gen_iban(rng, lang))
        fill(b, filler, pick_t(rng, "iban", lang), (v, category, kind, True))
    elif slot == "iban_decoy":
        v, kind, group = gen_iban_decoy(rng, lang)
        v, kind = disguise(drng, slot, v, kind)
        fill(b, filler, pick_t(rng, group, lang), (v, category, kind, False))
    elif slot in ("ipv4", "ipv6"):
        v, kind = (gen_ipv4 if slot == "ipv4" else gen_ipv6)(rng, lang)
        fill(b, filler, pick_t(rng, slot, lang), (v, category, kind, True))
    elif slot == "ip_decoy":
        v, kind, group = gen_ip_decoy(rng, lang)
        fill(b, filler, pick_t(rng, group, lang), (v, category, kind, False))
    elif slot == "phone":
        v, kind = gen_phone(rng, lang)
        fill(b, filler, pick_t(rng, "phone", lang), (v, category, kind, True))
    elif slot == "phone_decoy":
        v, kind, group = gen_phone_decoy(rng, lang)
        fill(b, filler, pick_t(rng, group, lang), (v, category, kind, False))
    elif slot == "email":
        v, kind = disguise(drng, slot, *gen_email(rng, lang, filler.name if rng.random() < 0.6 else None))
        fill(b, filler, pick_t(rng, "email", lang), (v, category, kind, True))
    elif slot == "email_decoy":
        v, kind, group = gen_email_decoy(rng, lang)
        v, kind = disguise(drng, slot, v, kind)
        fill(b, filler, pick_t(rng, group, lang), (v, category, kind, False))
    elif slot == "dob":
        v, kind, _ = gen_dob(rng, lang)
        fill(b, filler, rng.choice(DOB_CONTEXT[lang]), (v, category, kind, True))
    elif slot == "dob_decoy":
        v, kind, group = gen_dob_decoy(rng, lang)
        template = rng.choice(DOB_CONTEXT[lang]) if group == "dob" else pick_t(rng, group, lang)
        fill(b, filler, template, (v, category, kind, False))
    elif slot == "secret":
        kind = rng.choices([k for k, _ in SECRET_KINDS], weights=[w for _, w in SECRET_KINDS])[0]
        v = gen_secret_value(rng, kind)
        snippet = rng.choice(SECRET_SNIPPETS[kind])
        if snippet.startswith("~"):
            snippet = snippet[1:]
        else:
            b.add(rng.choice(CODE_LEADS[lang]) + "\n")
        fill(b, filler, snippet, (v, category, "secret/" + kind, True))
    elif slot == "secret_decoy":
        v, kind, snippet = gen_secret_decoy(rng, lang)
        fill(b, filler, snippet, (v, category, kind, False))
    else:
        raise ValueError(slot)


def choose_slots(rng):
    k = rng.choices([0, 1, 2, 3, 4], weights=[8, 28, 34, 21, 9])[0]
    names = [s[0] for s in SLOTS]
    weights = [s[3] for s in SLOTS]
    while True:
        slots = rng.choices(names, weights=weights, k=k)
        # Keep the decoys unambiguous: no birth-context date next to a plain
        # date decoy, and no SSN keyword in a message with a contextless
        # 9-digit number (ssn_decoy may pick that form; see emit).
        if "dob" in slots and "dob_decoy" in slots:
            continue
        return slots


def make_record(rng, seed, index):
    lang = rng.choices(LANGS, weights=LANG_WEIGHTS)[0]
    slots = choose_slots(rng)
    # The domain follows the first slot, so the message reads coherently.
    domain = rng.choice(SLOT_BY_NAME[slots[0]][4]) if slots else rng.choice(list(INTROS["en"]))
    if any(s in ("secret", "secret_decoy", "ip_decoy", "email_decoy") for s in slots):
        domain = "dev"
    filler = Filler(rng, lang)
    drng = random.Random(f"disguise-{seed}-{index}")  # a str seed is hashed with SHA-512: stable across runs
    b = Builder()
    fill(b, filler, rng.choice(INTROS[lang][domain]))
    b.add("\n" if b.parts[-1][-1] in ",:" or rng.random() < 0.5 else " ")
    pool = list(FILLER[lang][domain])
    rng.shuffle(pool)
    if rng.random() < 0.5:
        b.add(pool.pop() + " ")
    # A contextless 9-digit decoy only goes into a message with no other SSN
    # slot, so no "SSN" keyword is anywhere near it.
    lone_ssn = sum(s in ("ssn", "ssn_decoy") for s in slots) == 1
    for i, slot in enumerate(slots):
        if i:
            # A clause without closing punctuation reads as a form line.
            ended = b.parts[-1].rstrip()[-1:] in ".?!)`"
            b.add(rng.choice([" ", "\n", "\n\n", " "]) if ended else "\n")
        emit_slot(rng, drng, b, filler, lang, slot, lone_ssn)
    if rng.random() < 0.6:
        ended = b.parts[-1].rstrip()[-1:] in ".?!)`"
        b.add((" " if ended else "\n") + pool.pop())
    outro = rng.choice(OUTROS[lang])
    if outro:
        b.add("\n\n")
        fill(b, filler, outro)
    text = b.text()
    rec = {"id": f"r{seed}-{index:05d}", "lang": lang, "text": text, "entities": b.entities, "decoys": b.decoys}
    check_record(rec)
    return rec


def check_record(rec):
    raw = rec["text"].encode("utf-8")
    spans = []
    for e in rec["entities"] + rec["decoys"]:
        assert 0 <= e["start"] < e["end"] <= len(raw), (rec["id"], e)
        value = raw[e["start"]:e["end"]].decode("utf-8")
        assert value == value.strip() and value, (rec["id"], e, value)
        spans.append((e["start"], e["end"]))
    spans.sort()
    for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
        assert a1 <= b0, (rec["id"], spans)
    for e in rec["entities"]:
        value = raw[e["start"]:e["end"]].decode("utf-8")
        # The value must not run on into a neighbouring character of its own kind.
        after = raw[e["end"]:e["end"] + 1].decode("utf-8", "ignore")
        before = raw[max(0, e["start"] - 1):e["start"]].decode("utf-8", "ignore")
        assert not (after.isalnum() or before.isalnum()), (rec["id"], e, before, value, after)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--out", default="-", help="output file (default stdout)")
    ap.add_argument("--stats", action="store_true", help="print the corpus composition to stderr")
    args = ap.parse_args(argv)
    if args.count < 1:
        ap.error("--count must be positive")

    rng = random.Random(args.seed)
    records = [make_record(rng, args.seed, i) for i in range(args.count)]

    positives, decoys, kinds = Counter(), Counter(), Counter()
    for r in records:
        for e in r["entities"]:
            positives[e["category"]] += 1
            kinds["+" + e["kind"]] += 1
        for d in r["decoys"]:
            decoys[d["category"]] += 1
            kinds["-" + d["kind"]] += 1
    if args.count >= 3000:
        for c in CRITICAL:
            if positives[c] < 300 or decoys[c] < 300:
                sys.exit(f"generate_corpus: too few {c} examples ({positives[c]} planted, {decoys[c]} decoys)")

    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if args.out == "-":
        sys.stdout.buffer.write(lines.encode("utf-8"))
        sys.stdout.flush()
    else:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(lines)

    summary = ", ".join(f"{c} {positives[c]}+/{decoys[c]}-" for c in CATEGORIES)
    print(f"generate_corpus: {len(records)} records (seed {args.seed}): {summary}", file=sys.stderr)
    if args.stats:
        langs = Counter(r["lang"] for r in records)
        print("languages: " + ", ".join(f"{k} {v}" for k, v in sorted(langs.items())), file=sys.stderr)
        print(f"records without planted PII: {sum(not r['entities'] for r in records)}", file=sys.stderr)
        for k, v in sorted(kinds.items()):
            print(f"  {k:40s} {v:5d}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
